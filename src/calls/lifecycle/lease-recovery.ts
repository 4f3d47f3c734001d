import { and, eq, lt } from 'drizzle-orm';
import { callInterrupted, errorResult } from '../../core/call-results.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import type { Db } from '../../db/client.js';
import { appendEvents } from '../../journal/append.js';
import type { RunService } from '../run-service.js';
import { toolCalls } from '../tables.js';
import { toolSpecIn } from './in-transaction.js';
import { WORKER_ACTOR } from './land-outcome.js';

/**
 * A call whose lease ran out lost its process. Idempotent tools run again, and so do tools that
 * run in their call's transaction (a lost process committed none of their effects); any other
 * call is failed as `interrupted` (never as denied) and, being a system failure, fails its run.
 */
export async function recoverExpiredLeases(
  db: Db,
  runs: RunService,
  runsInTransaction: (spec: ToolSpec) => boolean,
): Promise<number> {
  // In lease order, which makes it a plain index scan (tool_calls_lease_expiry_idx): that marks the
  // entries finished calls left there dead as it passes them, where a bitmap scan (the planner's
  // pick unordered) would read every one of them on every sweep until vacuum. The rest, if more
  // than a page expired, wait for the next sweep.
  const candidates = await db
    .select({ id: toolCalls.id, runId: toolCalls.runId })
    .from(toolCalls)
    .where(and(eq(toolCalls.status, 'STARTED'), lt(toolCalls.leaseExpiresAt, new Date())))
    .orderBy(toolCalls.leaseExpiresAt)
    .limit(100);
  let recovered = 0;
  for (const candidate of candidates) {
    const done = await db.transaction(async (tx) => {
      const run = await runs.lock(tx, candidate.runId);
      const [call] = await tx
        .select()
        .from(toolCalls)
        .where(
          and(
            eq(toolCalls.id, candidate.id),
            eq(toolCalls.status, 'STARTED'),
            lt(toolCalls.leaseExpiresAt, new Date()),
          ),
        )
        .for('update', { skipLocked: true });
      if (!call) return false;
      const spec = await toolSpecIn(tx, call.name);
      if (call.tool?.annotations.idempotent || (spec && runsInTransaction(spec))) {
        await tx
          .update(toolCalls)
          .set({ status: 'APPROVED', leaseOwner: null, leaseExpiresAt: null })
          .where(eq(toolCalls.id, call.id));
        await appendEvents(tx, [
          {
            type: 'tool_call_requeued',
            runId: call.runId,
            callId: call.id,
            actor: WORKER_ACTOR,
            payload: { reason: 'lease expired', previousWorker: call.leaseOwner, attempts: call.attempts },
          },
        ]);
        return true;
      }
      const error = callInterrupted(call.name);
      await tx
        .update(toolCalls)
        .set({
          status: 'FAILED',
          error,
          result: errorResult(call.id, error),
          finishedAt: new Date(),
          leaseOwner: null,
        })
        .where(eq(toolCalls.id, call.id));
      await appendEvents(tx, [
        {
          type: 'tool_call_failed',
          runId: call.runId,
          callId: call.id,
          actor: WORKER_ACTOR,
          payload: { error, previousWorker: call.leaseOwner },
        },
      ]);
      if (run.status === 'RUNNING') await runs.end(tx, run, 'FAILED', WORKER_ACTOR, error);
      return true;
    });
    if (done) recovered += 1;
  }
  return recovered;
}
