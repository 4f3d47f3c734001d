import { GraphQLError, Kind, valueFromASTUntyped } from 'graphql';
import { builder } from './builder.js';

builder.scalarType('JSON', {
  description: 'Any JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables ?? undefined),
});

function toDate(value: unknown): Date {
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) {
    throw new GraphQLError(`not an ISO-8601 date-time: ${String(value)}`, {
      extensions: { code: 'BAD_USER_INPUT' },
    });
  }
  return date;
}

builder.scalarType('DateTime', {
  description: 'An ISO-8601 date-time in UTC.',
  serialize: (value) => toDate(value).toISOString(),
  parseValue: (value) => toDate(value),
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING)
      throw new GraphQLError('DateTime must be a string', { extensions: { code: 'BAD_USER_INPUT' } });
    return toDate(ast.value);
  },
});
