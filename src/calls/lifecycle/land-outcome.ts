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
    // The update goes out behind the lock without waiting for its answer (one round trip for
    // both): the connection runs a transaction's statements in the order they were made, so the
    // lock is still taken first; the update needs nothing the lock reads.
    const [run, done] = await Promise.all([
      deps.runs.lock(tx, call.runId),
      finishUnderLease(tx, deps.workerId, call, outcome),
    ]);
    return recordOrDiscard(tx, deps, { run, call, outcome, durationMs }, done);
  });
}

/** How a call of a run ended, and how long its tool took. */
export interface Landed<Call> {
  run: RunRow;
  call: Call;
  outcome: CallOutcome;
  durationMs: number;
}

/** Writes how the call ended if `workerId` still holds it; the finished row, or none. */
async function finishUnderLease(
  tx: Tx,
  workerId: string,
  call: ToolCallRow,
  outcome: CallOutcome,
): Promise<ToolCallRow | undefined> {
  const [done] = await tx
    .update(toolCalls)
    .set({ ...finishedColumns(outcome), leaseOwner: null, leaseExpiresAt: null })
    .where(
      and(eq(toolCalls.id, call.id), eq(toolCalls.status, 'STARTED'), eq(toolCalls.leaseOwner, workerId)),
    )
    .returning();
  return done;
}

/** The finished call's journal event and what follows it; a call no longer held is left as it stands. */
async function recordOrDiscard(
  tx: Tx,
  deps: Omit<LandingDeps, 'db'>,
  { run, call, outcome, durationMs }: Landed<ToolCallRow>,
  done: ToolCallRow | undefined,
): Promise<ToolCallRow | null> {
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
