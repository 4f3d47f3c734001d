import { and, count, eq, inArray, like, type SQL, sql } from 'drizzle-orm';
import { likePattern } from '../core/access.js';
import type { Principal } from '../core/auth.js';
import type { Db } from '../db/client.js';
import type { ApprovalQueueFilter } from './rules/queue-filter.js';
import { runScope } from './run-service.js';
import { runs, toolCalls } from './tables.js';

/**
 * The SQL of "calls awaiting approval that this principal sees and this filter keeps": the
 * snapshot of a queue subscription and `pendingApprovals` (its pages and its count) read the
 * same rows the live filter in `matchesQueueFilter` keeps.
 */
export function pendingApprovalsWhere(
  db: Db,
  principal: Principal,
  filter: ApprovalQueueFilter | null | undefined,
): SQL {
  const conditions: SQL[] = [eq(toolCalls.status, 'AWAITING_APPROVAL')];
  const runConditions: SQL[] = [];
  const scope = runScope(principal);
  if (scope) runConditions.push(scope);
  if (filter?.userId) runConditions.push(eq(runs.userId, filter.userId));
  if (runConditions.length > 0)
    conditions.push(
      inArray(
        toolCalls.runId,
        db
          .select({ id: runs.id })
          .from(runs)
          .where(and(...runConditions)),
      ),
    );
  if (filter?.runId) conditions.push(eq(toolCalls.runId, filter.runId));
  if (filter?.toolPattern) conditions.push(like(toolCalls.name, likePattern(filter.toolPattern)));
  if (filter?.source) conditions.push(sql`${toolCalls.tool}->>'source' = ${filter.source}`);
  return and(...conditions)!;
}

export async function countPendingApprovals(db: Db, where: SQL): Promise<number> {
  const [row] = await db.select({ n: count() }).from(toolCalls).where(where);
  return row?.n ?? 0;
}
