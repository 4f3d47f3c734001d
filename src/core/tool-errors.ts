import type { ToolErrorKind } from './tool-result.js';

/**
 * Thrown by a tool to tell the model something it can act on (no hits, stale file, patch context
 * not found). The run goes on; the model reads `message`.
 */
export class RecoverableToolError extends Error {
  readonly kind: ToolErrorKind = 'RECOVERABLE';
  constructor(
    readonly code: string,
    message: string,
    readonly structured?: unknown,
  ) {
    super(message);
    this.name = 'RecoverableToolError';
  }
}

/** Thrown when the runtime itself cannot go on safely (path escape, broken invariant): the run fails. */
export class SystemFailure extends Error {
  readonly kind: ToolErrorKind = 'SYSTEM_FAILURE';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SystemFailure';
  }
}
