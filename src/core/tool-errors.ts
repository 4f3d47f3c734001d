import type { BuiltInErrorCode, ErrorCodeOfKind, OwnErrorCode } from './tool-error-codes.js';
import type { ToolErrorKind } from './tool-result.js';

const codeOf = (code: BuiltInErrorCode | OwnErrorCode): string =>
  typeof code === 'string' ? code : code.own;

/**
 * Thrown by a tool to tell the model something it can act on (no hits, stale file, patch context
 * not found). The run goes on; the model reads `message`.
 */
export class RecoverableToolError extends Error {
  readonly kind: ToolErrorKind = 'RECOVERABLE';
  readonly code: string;
  constructor(
    code: ErrorCodeOfKind<'RECOVERABLE'> | OwnErrorCode,
    message: string,
    readonly structured?: unknown,
  ) {
    super(message);
    this.name = 'RecoverableToolError';
    this.code = codeOf(code);
  }
}

/** Thrown when the runtime itself cannot go on safely (path escape, broken invariant): the run fails. */
export class SystemFailure extends Error {
  readonly kind: ToolErrorKind = 'SYSTEM_FAILURE';
  readonly code: string;
  constructor(code: ErrorCodeOfKind<'SYSTEM_FAILURE'> | OwnErrorCode, message: string) {
    super(message);
    this.name = 'SystemFailure';
    this.code = codeOf(code);
  }
}
