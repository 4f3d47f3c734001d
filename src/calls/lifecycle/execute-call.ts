import { callTimedOut, errorResult, noExecutor } from '../../core/call-results.js';
import type { Logger } from '../../core/logger.js';
import type { BuiltInToolError } from '../../core/tool-error-codes.js';
import { RecoverableToolError, SystemFailure } from '../../core/tool-errors.js';
import type { ToolError, ToolResult } from '../../core/tool-result.js';
import type { Db } from '../../db/client.js';
import type { RegistryService } from '../registry-service.js';
import { storeResource } from '../resource-store.js';
import type { RunService } from '../run-service.js';
import type { RunRow, ToolCallRow } from '../tables.js';
import type { ToolExecutor, ToolOutput } from '../tool-contract.js';
import { buildInvocation, ownTransactions } from './invocation.js';
import { shapeResult } from './shape-result.js';

export interface ExecutionOptions {
  defaultTimeoutMs: number;
  /** However often a tool reports progress, a call ends after this long (or its own timeout, if longer). */
  maxTotalTimeoutMs: number;
  /**
   * After a timeout aborts a call, how long its executor may take to say how it ended. An executor
   * that races an answer against the deadline (the extension bridge) reports the side that won, so
   * an answer accepted at the last moment is applied instead of being acknowledged and dropped.
   */
  settleAfterAbortMs: number;
}

export interface ExecutionDeps {
  db: Db;
  runs: RunService;
  registry: RegistryService;
  executors: ToolExecutor[];
  logger: Logger;
  options: ExecutionOptions;
}

/** How a call ended, before it is landed. */
export type CallOutcome =
  | { status: 'COMPLETED'; result: ToolResult; completeRun: boolean }
  | { status: 'FAILED'; result: ToolResult; error: ToolError };

/**
 * Runs one claimed call on the executor for its tool, under its timeout (which progress moves, up
 * to the maximum total time) and `controller`'s abort, and says how it ended. Never throws for
 * what the tool does: every failure becomes a FAILED outcome.
 */
export async function executeCall(
  deps: ExecutionDeps,
  call: ToolCallRow,
  controller: AbortController,
  /** The call's run, when the caller has it in hand (its requester): not read again. */
  known?: RunRow,
): Promise<CallOutcome> {
  const { options } = deps;
  const spec = await deps.registry.get(call.name);
  const executor = spec && deps.executors.find((e) => e.canExecute(spec));
  if (!spec || !executor) return failed(call, noExecutor(call.name));
  const run = known ?? (await deps.runs.get(call.runId))!;
  const timeoutMs = call.timeoutMs ?? options.defaultTimeoutMs;
  const invocation = buildInvocation(ownTransactions(deps.db), {
    call,
    run,
    spec,
    signal: controller.signal,
    deadline: new Date(Date.now() + timeoutMs),
  });

  let timer: NodeJS.Timeout | undefined;
  const started = Date.now();
  const lastMoment = started + Math.max(timeoutMs, options.maxTotalTimeoutMs);
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
    invocation.progress = () => {
      const next = Math.min(Date.now() + timeoutMs, lastMoment);
      invocation.deadline = new Date(next);
      clearTimeout(timer);
      timer = setTimeout(() => resolve('timeout'), next - Date.now());
    };
  });
  try {
    const execution = executor.execute(invocation);
    let output = await Promise.race([execution, timedOut]);
    if (output === 'timeout') {
      // The standard name for a timeout abort, so an executor can tell it from a cancellation.
      controller.abort(new DOMException(`${call.name} timed out`, 'TimeoutError'));
      const late = await settleWithin(execution, options.settleAfterAbortMs);
      const reported = late?.error instanceof RecoverableToolError || late?.error instanceof SystemFailure;
      if (!late || (late.error !== undefined && !reported))
        return failed(call, callTimedOut(call.name, timeoutMs));
      if (late.error !== undefined) throw late.error;
      output = late.value as ToolOutput;
    }
    const result = await shapeResult(spec, output as ToolOutput, {
      callId: call.id,
      maxOutputTokens: call.maxOutputTokens,
      durationMs: Date.now() - started,
      store: (content, mime) => storeResource(deps.db, content, mime, run.id),
    });
    return { status: 'COMPLETED', result, completeRun: (output as ToolOutput).completeRun ?? false };
  } catch (error) {
    return outcomeOfThrow(deps.logger, call, error, controller.signal.aborted);
  } finally {
    clearTimeout(timer);
  }
}

/** A tool's own errors keep their kind and code; anything else is a cancellation or a crash. */
export function outcomeOfThrow(
  logger: Logger,
  call: Pick<ToolCallRow, 'id' | 'name'>,
  error: unknown,
  aborted: boolean,
): CallOutcome {
  if (error instanceof RecoverableToolError) {
    return failed(call, { kind: 'RECOVERABLE', code: error.code, message: error.message }, error.structured);
  }
  if (error instanceof SystemFailure)
    return failed(call, { kind: 'SYSTEM_FAILURE', code: error.code, message: error.message });
  if (aborted) {
    const cancelled: BuiltInToolError<'RECOVERABLE'> = {
      kind: 'RECOVERABLE',
      code: 'cancelled',
      message: `The call to ${call.name} was cancelled.`,
    };
    return failed(call, cancelled);
  }
  logger.error({ err: error, callId: call.id, tool: call.name }, 'tool threw an unexpected error');
  const crashed: BuiltInToolError<'SYSTEM_FAILURE'> = {
    kind: 'SYSTEM_FAILURE',
    code: 'tool_crashed',
    message: `The tool ${call.name} failed unexpectedly: ${(error as Error).message ?? String(error)}`,
  };
  return failed(call, crashed);
}

export function failed(call: Pick<ToolCallRow, 'id'>, error: ToolError, structured?: unknown): CallOutcome {
  return { status: 'FAILED', error, result: errorResult(call.id, error, structured) };
}

/** How a promise ended, if it ends within `ms`; null if it is still running then. */
async function settleWithin<T>(
  promise: Promise<T>,
  ms: number,
): Promise<{ value: T; error?: undefined } | { value?: undefined; error: unknown } | null> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      expired,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
