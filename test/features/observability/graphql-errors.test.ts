import { GraphQLError } from 'graphql';
import { expect, test } from 'vitest';
import { createLogger } from '../../../src/app/logger.js';
import { DomainError } from '../../../src/core/errors.js';
import { logErrors } from '../../../src/features/observability/graphql.js';
import { LEVEL, type LogLine } from './observed.js';

function logged(error: GraphQLError) {
  const lines: LogLine[] = [];
  logErrors(createLogger('debug', { write: (l: string) => void lines.push(JSON.parse(l)) }), [error], 'Op');
  return lines.map((l) => ({ level: l.level, code: l.code }));
}

test('an error that is no DomainError is a bug, logged at error with its cause', () => {
  const error = new GraphQLError('Unexpected error.', { originalError: new TypeError('x is undefined') });
  expect(logged(error)).toEqual([{ level: LEVEL.error, code: undefined }]);
});

test('a masked INTERNAL_SERVER_ERROR is logged at error', () => {
  const error = new GraphQLError('Unexpected error.', {
    extensions: { code: 'INTERNAL_SERVER_ERROR' },
    originalError: new Error('db down'),
  });
  expect(logged(error)).toEqual([{ level: LEVEL.error, code: 'INTERNAL_SERVER_ERROR' }]);
});

test('a DomainError is logged by its code: CONFLICT at debug, RATE_LIMITED at info', () => {
  const conflict = new GraphQLError('busy', { originalError: new DomainError('CONFLICT', 'busy') });
  const limited = new GraphQLError('slow down', { extensions: { code: 'RATE_LIMITED' } });
  expect([...logged(conflict), ...logged(limited)]).toEqual([
    { level: LEVEL.debug, code: 'CONFLICT' },
    { level: LEVEL.info, code: 'RATE_LIMITED' },
  ]);
});
