/**
 * Errors that cross a service boundary carry a stable code. The GraphQL layer turns them into
 * `extensions.code`; anything that is not a DomainError is an internal bug and gets masked.
 */
export type DomainErrorCode =
  | 'BAD_USER_INPUT'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'FORBIDDEN'
  | 'UNAUTHENTICATED'
  | 'FAILED_PRECONDITION'
  /** A context preset's FAIL rule: a prompt component (or the whole frame) is over its token budget. */
  | 'CONTEXT_BUDGET_EXCEEDED';

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
