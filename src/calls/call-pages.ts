import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { Principal } from '../core/auth.js';
import type { Db } from '../db/client.js';
import { toolCalls } from './tables.js';

export interface CallPageFilter {
  runId?: string | null;
  status?: (typeof toolCalls.$inferSelect)['status'] | null;
  seenBy?: Principal | null;
  /** A ready condition (such as the approval queue's) added to the others. */
  where?: SQL;
  after?: { at: Date; id: string } | null;
  before?: { at: Date; id: string } | null;
  limit: number;
  inverted: boolean;
}

/**
 * Oldest first; `after`/`before` are (requestedAt, id) keys of rows already seen. With `scope`
 * (the runs `seenBy` may see), only those runs' calls, filtered in SQL so pages stay full and
 * nothing outside the scope is even counted.
 */
export function pageOfCalls(db: Db, filter: CallPageFilter, scope: SQL | undefined) {
  const conditions: SQL[] = [];
  if (filter.runId) conditions.push(eq(toolCalls.runId, filter.runId));
  if (filter.status) conditions.push(eq(toolCalls.status, filter.status));
  if (scope) conditions.push(scope);
  if (filter.where) conditions.push(filter.where);
  // Raw SQL parameters bypass column encoding: timestamps travel as ISO strings and are cast.
  if (filter.after)
    conditions.push(
      sql`(${toolCalls.requestedAt}, ${toolCalls.id}) > (${filter.after.at.toISOString()}::timestamptz, ${filter.after.id}::uuid)`,
    );
  if (filter.before)
    conditions.push(
      sql`(${toolCalls.requestedAt}, ${toolCalls.id}) < (${filter.before.at.toISOString()}::timestamptz, ${filter.before.id}::uuid)`,
    );
  const order = filter.inverted
    ? [desc(toolCalls.requestedAt), desc(toolCalls.id)]
    : [asc(toolCalls.requestedAt), asc(toolCalls.id)];
  return db
    .select()
    .from(toolCalls)
    .where(and(...conditions))
    .orderBy(...order)
    .limit(filter.limit);
}
