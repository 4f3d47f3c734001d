import { SpanKind } from '@opentelemetry/api';
import { PglitePreparedQuery, PgliteSession } from 'drizzle-orm/pglite/session';
import { PostgresJsPreparedQuery, PostgresJsSession } from 'drizzle-orm/postgres-js/session';
import { inSpan } from './spans.js';

type Method = (this: { queryString?: string }, ...args: unknown[]) => Promise<unknown>;

function wrap(prototype: object, method: string, name: string, statement: boolean): void {
  const target = prototype as Record<string, Method>;
  const original = target[method]!;
  target[method] = function (this: { queryString?: string }, ...args: unknown[]) {
    const attributes: Record<string, string> = { 'db.system.name': 'postgresql' };
    if (statement && this.queryString) attributes['db.query.text'] = this.queryString;
    return inSpan(name, attributes, () => original.apply(this, args), SpanKind.CLIENT);
  };
}

/**
 * Drizzle names OpenTelemetry but never loads it, so its queries are wrapped here, only when
 * tracing is on: each statement and each transaction is a span of whatever span is active.
 */
export function traceDatabase(): void {
  for (const query of [PglitePreparedQuery.prototype, PostgresJsPreparedQuery.prototype]) {
    wrap(query, 'execute', 'db.query', true);
    wrap(query, 'all', 'db.query', true);
  }
  for (const session of [PgliteSession.prototype, PostgresJsSession.prototype])
    wrap(session, 'transaction', 'db.transaction', false);
}
