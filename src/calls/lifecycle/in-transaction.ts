import { eq } from 'drizzle-orm';
import { callTimedOut } from '../../core/call-results.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { inTransaction } from '../../db/ambient.js';
import { awaitWithCommit } from '../../db/pipelined-begin.js';
import type { Tx } from '../../db/tx.js';
import { journaledSavepoint } from '../../journal/append.js';
import { specOf } from '../registry-service.js';
import { storeResource } from '../resource-store.js';
import { type RunRow, type ToolCallRow, tools } from '../tables.js';
import type { ToolExecutor, ToolOutput } from '../tool-contract.js';
import { type CallOutcome, type ExecutionDeps, failed, outcomeOfThrow } from './execute-call.js';
import { buildInvocation, type CallToRun, type WritePlace } from './invocation.js';
import { finishedColumns, type LandingDeps, recordLanded } from './land-outcome.js';
import { shapeResult } from './shape-result.js';

/** Thrown inside the tool's savepoint so that a timed-out tool's writes are rolled back with it. */
class TimedOut extends Error {}

/** The columns of a call that ran in its transaction: its start and its end, written at once. */
export type RanColumns = ReturnType<typeof finishedColumns> & { startedAt: Date };

/**
 * Writes the row of a call that ran in its transaction, once: the insert of a call requested in
 * it, or the update of a ready call it holds locked. Nobody else sees the call started.
 */
export type WriteRan = (columns: RanColumns) => Promise<ToolCallRow>;

/**
 * The row `write` wrote. Its statement's answer may come with the transaction's COMMIT (see
 * `awaitWithCommit`): a caller that needs the row before its transaction ends awaits it there.
 */
export interface Ran {
  row: Promise<ToolCallRow>;
}

/**
 * Runs a call whose tool keeps its effects in this database inside `tx`, the call's own
 * transaction, and lands the outcome there: the effects, the result and their journal events
 * commit together or not at all. The tool runs in a savepoint, so a tool that fails leaves none of
 * its writes behind while its failure is still recorded. The run's row must already be locked,
 * and the call's row too if it exists: `call` is the row as `write` will leave it, apart from how
 * it ended, since the row is written once, after the tool (no insert or update to redo).
 *
 * A timeout aborts the tool's signal but the transaction cannot move on until the tool's queries
 * have, so its end is awaited; whatever it did is then rolled back and the call fails as timed out.
 */
export async function runInTransaction(
  deps: ExecutionDeps & Pick<LandingDeps, 'runs'>,
  ready: CallInTransaction,
  write: WriteRan,
): Promise<Ran> {
  const startedAt = new Date();
  const outcome = await executeIn(deps, ready);
  const durationMs = Date.now() - startedAt.getTime();
  const row = write({ ...finishedColumns(outcome), startedAt });
  // Not waited for where the COMMIT waits for it: the landing's events and the COMMIT go out
  // behind the row's statement, a round trip fewer (issue 30). The landing needs only the call's id.
  if (!awaitWithCommit(row)) await row;
  await recordLanded(ready.tx, deps, { run: ready.run, call: ready.call, outcome, durationMs });
  return { row };
}

/** A ready call in the transaction that holds its run's row lock, with its spec and the executor that runs it. */
export interface CallInTransaction {
  tx: Tx;
  run: RunRow;
  call: CallToRun;
  spec: ToolSpec;
  executor: ToolExecutor;
}

async function executeIn(
  deps: ExecutionDeps,
  { tx, run, call, spec, executor }: CallInTransaction,
): Promise<CallOutcome> {
  const timeoutMs = call.timeoutMs ?? deps.options.defaultTimeoutMs;
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`${call.name} timed out`, 'TimeoutError')),
    timeoutMs,
  );
  const started = Date.now();
  try {
    return await journaledSavepoint(tx, async (savepoint) => {
      const place: WritePlace = {
        executor: savepoint,
        transaction: (work) => journaledSavepoint(savepoint, work),
      };
      const deadline = new Date(started + timeoutMs);
      const invocation = buildInvocation(place, { call, run, spec, signal: controller.signal, deadline });
      const output: ToolOutput = await inTransaction(savepoint, place.transaction, () =>
        executor.execute(invocation),
      );
      if (controller.signal.aborted) throw new TimedOut();
      const result = await shapeResult(spec, output, {
        callId: call.id,
        maxOutputTokens: call.maxOutputTokens,
        durationMs: Date.now() - started,
        store: (content, mime) => storeResource(savepoint, content, mime, run.id),
      });
      return { status: 'COMPLETED', result, completeRun: output.completeRun ?? false } as const;
    });
  } catch (error) {
    if (error instanceof TimedOut || controller.signal.aborted)
      return failed(call, callTimedOut(call.name, timeoutMs));
    return outcomeOfThrow(deps.logger, call, error, false);
  } finally {
    clearTimeout(timer);
  }
}

/** The registered spec, read in the caller's transaction (a query outside it would wait for it on PGlite). */
export async function toolSpecIn(tx: Tx, name: string): Promise<ToolSpec | null> {
  const [row] = await tx.select().from(tools).where(eq(tools.name, name)).limit(1);
  return row ? specOf(row) : null;
}
