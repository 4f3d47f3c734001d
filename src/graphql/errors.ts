import { GraphQLError } from 'graphql';
import { DomainError } from '../core/errors.js';

interface WrappedError {
  message: string;
  originalError?: unknown;
  nodes?: GraphQLError['nodes'];
  path?: GraphQLError['path'];
  extensions?: Record<string, unknown>;
}

// graphql ships CJS and ESM builds; a test runner can load both, so `instanceof GraphQLError`
// is not reliable for errors created by yoga. The shape is.
const isGraphQLError = (error: unknown): error is WrappedError =>
  typeof error === 'object' && error !== null && 'extensions' in error && 'path' in error;

/**
 * Expected failures are DomainErrors and reach the client with their code; anything else is a bug
 * whose details stay in the log, and the client sees a masked INTERNAL_SERVER_ERROR.
 */
export function maskError(error: unknown, message: string): Error {
  if (!isGraphQLError(error))
    return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
  const original = error.originalError;
  if (DomainError.is(original)) {
    return new GraphQLError(original.message, {
      nodes: error.nodes,
      path: error.path,
      extensions: { code: original.code, ...(original.details ?? {}) },
    });
  }
  if (!original || isGraphQLError(original)) return error as Error;
  return new GraphQLError(message, {
    nodes: error.nodes,
    path: error.path,
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
  });
}
