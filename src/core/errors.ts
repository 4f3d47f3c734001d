import type { DomainErrorCode } from './graphql-error-codes.js';

export type { DomainErrorCode } from './graphql-error-codes.js';

/**
 * Errors that cross a service boundary carry a stable code (graphql-error-codes.ts lists them). The
 * GraphQL layer turns them into `extensions.code`; anything that is not a DomainError is an internal
 * bug and gets masked.
 */
export class DomainError extends Error {
  readonly code: DomainErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: DomainErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }

  static is(error: unknown): error is DomainError {
    return (
      error instanceof DomainError ||
      (error instanceof Error && error.name === 'DomainError' && 'code' in error)
    );
  }
}

export const badInput = (message: string, details?: Record<string, unknown>) =>
  new DomainError('BAD_USER_INPUT', message, details);
export const notFound = (message: string) => new DomainError('NOT_FOUND', message);
export const conflict = (message: string, details?: Record<string, unknown>) =>
  new DomainError('CONFLICT', message, details);
export const forbidden = (message: string) => new DomainError('FORBIDDEN', message);
