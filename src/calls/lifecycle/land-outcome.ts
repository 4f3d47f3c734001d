import { and, eq } from 'drizzle-orm';
import type { Logger } from '../../core/logger.js';
import type { Db } from '../../db/client.js';
import type { Tx } from '../../db/tx.js';
import { appendEvents } from '../../journal/append.js';
import type { RunService } from '../run-service.js';
import { type RunRow, type ToolCallRow, toolCalls } from '../tables.js';
import type { CallOutcome } from './execute-call.js';

export const WORKER_ACTOR = 'system:dispatcher';

export interface LandingDeps {
  db: Db;
  runs: RunService;
  logger: Logger;
  /** The worker whose lease the outcome must land under. */
  workerId: string;
}

/**
 * Lands the outcome only while `workerId` still holds the call; a lost lease or a cancelled run
 * discards it. A system failure fails the run; a tool that completes the run ends it.
 */
export function landOutcome(
  deps: LandingDeps,
  call: ToolCallRow,
  outcome: CallOutcome,
  durationMs: number,
): Promise<ToolCallRow | null> {
  return deps.db.transaction(async (tx) => {
    // Run row first, like every other writer, so that completion and cancellation cannot deadlock.
    const run = await deps.runs.lock(tx, call.runId);
    return landIn(tx, deps, { run, call, outcome, durationMs });
  });
}

/** How a call of a run ended, and how long its tool took. */
export interface Landed<Call> {
  run: RunRow;
  call: Call;
  outcome: CallOutcome;
  durationMs: number;
}

/** The landing itself, in a transaction that already holds the run's row lock. */
export async function landIn(
  tx: Tx,
  deps: Omit<LandingDeps, 'db'>,
  { run, call, outcome, durationMs }: Landed<ToolCallRow>,
): Promise<ToolCallRow | null> {
  const [done] = await tx
    .update(toolCalls)
    .set({ ...finishedColumns(outcome), leaseOwner: null, leaseExpiresAt: null })
    .where(
      and(
        eq(toolCalls.id, call.id),
        eq(toolCalls.status, 'STARTED'),
        eq(toolCalls.leaseOwner, deps.workerId),
      ),
    )
    .returning();
  if (!done) {
    deps.logger.warn(
      { callId: call.id },
      'tool call outcome discarded: the call was cancelled or its lease was lost',
    );
    const [now] = await tx.select().from(toolCalls).where(eq(toolCalls.id, call.id));
    return now ?? null;
  }
  await recordLanded(tx, deps, { run, call: done, outcome, durationMs });
  return done;
}

/** The columns that record how a call ended. */
export function finishedColumns(outcome: CallOutcome) {
  return {
    status: outcome.status,
    result: outcome.result,
    error: outcome.status === 'FAILED' ? outcome.error : null,
    finishedAt: new Date(),
  };
}

/**
 * What follows a landed outcome in the same transaction: its journal event, and the run's end
 * when the tool completed it or failed as a system failure.
 */
export async function recordLanded(
  tx: Tx,
  deps: Pick<LandingDeps, 'runs'>,
  { run, call, outcome, durationMs }: Landed<Pick<ToolCallRow, 'id' | 'runId'>>,
): Promise<void> {
  const payload =
    outcome.status === 'COMPLETED'
      ? {
          isError: outcome.result.isError,
          parts: outcome.result.content.map((p) => p.type),
          resourceRefs: outcome.result.resourceRefs,
          durationMs,
        }
      : { error: outcome.error, durationMs };
  await appendEvents(tx, [
    {
      type: outcome.status === 'COMPLETED' ? 'tool_call_completed' : 'tool_call_failed',
      runId: call.runId,
      callId: call.id,
      actor: WORKER_ACTOR,
      payload,
    },
  ]);
  const systemFailure = outcome.status === 'FAILED' && outcome.error.kind === 'SYSTEM_FAILURE';
  if (
    (systemFailure || (outcome.status === 'COMPLETED' && outcome.completeRun)) &&
    run.status === 'RUNNING'
  ) {
    await deps.runs.end(
      tx,
      run,
      systemFailure ? 'FAILED' : 'COMPLETED',
      WORKER_ACTOR,
      systemFailure ? outcome.error : null,
    );
  }
}
