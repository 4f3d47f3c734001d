import { randomUUID } from 'node:crypto';
import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import { callInterrupted, callTimedOut, errorResult, noExecutor } from '../core/call-results.js';
import type { JournalEvent, NewJournalEvent } from '../core/journal-event.js';
import type { Logger } from '../core/logger.js';
import { RecoverableToolError, SystemFailure } from '../core/tool-errors.js';
import type { ToolError, ToolResult } from '../core/tool-result.js';
import type { Db } from '../db/client.js';
import { toolCalls } from './tables.js';
import { appendEvents } from '../journal/append.js';
import type { JournalBus } from '../journal/bus.js';
import type { RegistryService } from './registry-service.js';
import { storeResource } from './resource-store.js';
import type { RunService } from './run-service.js';
import { shapeResult } from './shape-result.js';
import type { ToolCallRow, ToolCallService } from './tool-call-service.js';
import type { Invocation, ToolExecutor, ToolOutput } from './tool-contract.js';

export interface DispatcherOptions {
  /** How long a claim holds before another process may recover the call. */
  leaseMs: number;
  defaultTimeoutMs: number;
  /** How often the background loop looks for work, expired approvals and expired leases. */
  pollMs: number;
  /** A ready call this old was orphaned by its requester (crash between commit and dispatch). */
  orphanAfterMs: number;
  /** However often a tool reports progress, a call ends after this long (or its own timeout, if longer). */
  maxTotalTimeoutMs: number;
  /**
   * After a timeout aborts a call, how long its executor may take to say how it ended. An executor
   * that races an answer against the deadline (the extension bridge) reports the side that won, so
   * an answer accepted at the last moment is applied instead of being acknowledged and dropped.
   */
  settleAfterAbortMs: number;
}

export const defaultDispatcherOptions: DispatcherOptions = {
  leaseMs: 30_000,
  defaultTimeoutMs: 60_000,
  pollMs: 1_000,
  orphanAfterMs: 5_000,
  maxTotalTimeoutMs: 600_000,
  settleAfterAbortMs: 1_000,
};

type Outcome =
  | { status: 'COMPLETED'; result: ToolResult; completeRun: boolean }
  | { status: 'FAILED'; result: ToolResult; error: ToolError };

const WORKER_ACTOR = 'system:dispatcher';

/**
 * Runs calls exactly once across any number of processes: a call is claimed by a conditional
 * UPDATE (or FOR UPDATE SKIP LOCKED when looking for work) that sets a lease; the lease is renewed
 * while the tool runs; completion only lands while this process still holds it.
 */
export class Dispatcher {
  readonly workerId = `worker-${randomUUID()}`;
  private readonly running = new Map<string, AbortController>();
  /** Every dispatch under way in this process, so that stop() can wait for them to land. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private sweeping: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly calls: ToolCallService,
    private readonly runs: RunService,
    private readonly registry: RegistryService,
    private readonly executors: ToolExecutor[],
    private readonly bus: JournalBus,
    private readonly logger: Logger,
    private readonly options: DispatcherOptions = defaultDispatcherOptions,
  ) {}

  /** Background work: recovery now, then on every poll; cancellations abort local calls. */
  start(): void {
    this.unsubscribe = this.bus.subscribe((events) => this.onEvents(events));
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), this.options.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
    for (const controller of this.running.values()) controller.abort(new Error('server shutting down'));
    await this.sweeping;
    await Promise.allSettled([...this.inFlight]);
  }

  private onEvents(events: JournalEvent[]): void {
    for (const event of events) {
      if (event.type === 'tool_call_cancelled' && event.callId)
        this.running.get(event.callId)?.abort(new Error('cancelled'));
    }
  }

  sweep(): Promise<void> {
    if (this.sweeping || this.stopped) return this.sweeping ?? Promise.resolve();
    this.sweeping = (async () => {
      try {
        await this.calls.expireApprovals();
        await this.recoverExpiredLeases();
        for (;;) {
          const claimed = await this.claimNext();
          if (!claimed) break;
          void this.track(this.execute(claimed));
        }
      } catch (error) {
        this.logger.error({ err: error }, 'dispatcher sweep failed');
      } finally {
        this.sweeping = null;
      }
    })();
    return this.sweeping;
  }

  private claimSet(now: Date) {
    return {
      status: 'STARTED' as const,
      leaseOwner: this.workerId,
      leaseExpiresAt: new Date(now.getTime() + this.options.leaseMs),
      startedAt: now,
      attempts: sql`${toolCalls.attempts} + 1`,
    };
  }

  private startedEvent(call: ToolCallRow): NewJournalEvent {
    return {
      type: 'tool_call_started',
      runId: call.runId,
      callId: call.id,
      actor: WORKER_ACTOR,
      payload: { worker: this.workerId, attempt: call.attempts },
    };
  }

  /** Claims one specific ready call; null when someone else has it or it is not ready. */
  async claim(callId: string): Promise<ToolCallRow | null> {
    return this.db.transaction(async (tx) => {
      const [call] = await tx
        .update(toolCalls)
        .set(this.claimSet(new Date()))
        .where(and(eq(toolCalls.id, callId), inArray(toolCalls.status, ['REQUESTED', 'APPROVED'])))
        .returning();
      if (!call) return null;
      await appendEvents(tx, [this.startedEvent(call)]);
      return call;
    });
  }

  /** Approved calls, and ready calls whose requester never dispatched them. */
  private async claimNext(): Promise<ToolCallRow | null> {
    return this.db.transaction(async (tx) => {
      const orphaned = new Date(Date.now() - this.options.orphanAfterMs);
      const [candidate] = await tx
        .select({ id: toolCalls.id })
        .from(toolCalls)
        .where(
          sql`${toolCalls.status} = 'APPROVED' or (${toolCalls.status} = 'REQUESTED' and ${toolCalls.requestedAt} < ${orphaned.toISOString()}::timestamptz)`,
        )
        .orderBy(toolCalls.requestedAt)
        .limit(1)
        .for('update', { skipLocked: true });
      if (!candidate) return null;
      const [call] = await tx
        .update(toolCalls)
        .set(this.claimSet(new Date()))
        .where(eq(toolCalls.id, candidate.id))
        .returning();
      await appendEvents(tx, [this.startedEvent(call!)]);
      return call!;
    });
  }

  /** Claims and runs a call in this process, returning it finished (or as it stands if another process has it). */
  dispatch(callId: string): Promise<ToolCallRow | null> {
    return this.track(
      (async () => {
        const claimed = await this.claim(callId);
        if (!claimed) return this.calls.get(callId);
        return this.execute(claimed);
      })(),
    );
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => {});
    return work;
  }

  private async execute(call: ToolCallRow): Promise<ToolCallRow | null> {
    const controller = new AbortController();
    this.running.set(call.id, controller);
    const renew = setInterval(() => void this.renewLease(call.id), Math.max(50, this.options.leaseMs / 3));
    renew.unref();
    const started = Date.now();
    try {
      const outcome = await this.run(call, controller);
      return await this.finish(call, outcome, Date.now() - started);
    } catch (error) {
      this.logger.error({ err: error, callId: call.id }, 'finishing a tool call failed');
      return this.calls.get(call.id);
    } finally {
      clearInterval(renew);
      this.running.delete(call.id);
    }
  }

  private async renewLease(callId: string): Promise<void> {
    try {
      await this.db
        .update(toolCalls)
        .set({ leaseExpiresAt: new Date(Date.now() + this.options.leaseMs) })
        .where(
          and(
            eq(toolCalls.id, callId),
            eq(toolCalls.leaseOwner, this.workerId),
            eq(toolCalls.status, 'STARTED'),
          ),
        );
    } catch (error) {
      this.logger.warn({ err: error, callId }, 'lease renewal failed');
    }
  }

  private async run(call: ToolCallRow, controller: AbortController): Promise<Outcome> {
    const spec = await this.registry.get(call.name);
    const executor = spec && this.executors.find((e) => e.canExecute(spec));
    if (!spec || !executor) return failed(call, noExecutor(call.name));
    const run = (await this.runs.get(call.runId))!;
    const timeoutMs = call.timeoutMs ?? this.options.defaultTimeoutMs;
    const deadline = new Date(Date.now() + timeoutMs);
    const invocation: Invocation = {
      callId: call.id,
      run: {
        id: run.id,
        userId: run.userId,
        profileId: run.profileId,
        planNodeId: run.planNodeId,
        chatId: run.chatId,
        workspaceId: run.workspaceId,
      },
      spec,
      arguments: call.arguments as Record<string, unknown>,
      signal: controller.signal,
      deadline,
      transaction: (work) =>
        this.db.transaction((tx) =>
          work(tx, (events) =>
            appendEvents(
              tx,
              events.map((e) => ({ ...e, runId: run.id, callId: call.id, actor: `tool:${call.name}` })),
            ).then(() => undefined),
          ),
        ),
      storeResource: (content, mimeType) => storeResource(this.db, content, mimeType, run.id),
    };

    let timer: NodeJS.Timeout | undefined;
    const started = Date.now();
    const lastMoment = started + Math.max(timeoutMs, this.options.maxTotalTimeoutMs);
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
        const late = await settleWithin(execution, this.options.settleAfterAbortMs);
        const reported = late?.error instanceof RecoverableToolError || late?.error instanceof SystemFailure;
        if (!late || (late.error !== undefined && !reported))
          return failed(call, callTimedOut(call.name, timeoutMs));
        if (late.error !== undefined) throw late.error;
        output = late.value as ToolOutput;
      }
      const result = await shapeResult(
        call.id,
        spec,
        output as ToolOutput,
        call.maxOutputTokens,
        Date.now() - started,
        (content, mime) => storeResource(this.db, content, mime, run.id),
      );
      return { status: 'COMPLETED', result, completeRun: (output as ToolOutput).completeRun ?? false };
    } catch (error) {
      if (error instanceof RecoverableToolError) {
        return failed(
          call,
          { kind: 'RECOVERABLE', code: error.code, message: error.message },
          error.structured,
        );
      }
      if (error instanceof SystemFailure)
        return failed(call, { kind: 'SYSTEM_FAILURE', code: error.code, message: error.message });
      if (controller.signal.aborted)
        return failed(call, {
          kind: 'RECOVERABLE',
          code: 'cancelled',
          message: `The call to ${call.name} was cancelled.`,
        });
      this.logger.error({ err: error, callId: call.id, tool: call.name }, 'tool threw an unexpected error');
      return failed(call, {
        kind: 'SYSTEM_FAILURE',
        code: 'tool_crashed',
        message: `The tool ${call.name} failed unexpectedly: ${(error as Error).message ?? String(error)}`,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Lands the outcome only while this process still holds the call; a lost lease or a cancelled run discards it. */
  private async finish(call: ToolCallRow, outcome: Outcome, durationMs: number): Promise<ToolCallRow | null> {
    return this.db.transaction(async (tx) => {
      // Run row first, like every other writer, so that completion and cancellation cannot deadlock.
      const run = await this.runs.lock(tx, call.runId);
      const [done] = await tx
        .update(toolCalls)
        .set({
          status: outcome.status,
          result: outcome.result,
          error: outcome.status === 'FAILED' ? outcome.error : null,
          finishedAt: new Date(),
          leaseOwner: null,
          leaseExpiresAt: null,
        })
        .where(
          and(
            eq(toolCalls.id, call.id),
            eq(toolCalls.status, 'STARTED'),
            eq(toolCalls.leaseOwner, this.workerId),
          ),
        )
        .returning();
      if (!done) {
        this.logger.warn(
          { callId: call.id },
          'tool call outcome discarded: the call was cancelled or its lease was lost',
        );
        const [now] = await tx.select().from(toolCalls).where(eq(toolCalls.id, call.id));
        return now ?? null;
      }
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
        await this.runs.end(
          tx,
          run,
          systemFailure ? 'FAILED' : 'COMPLETED',
          WORKER_ACTOR,
          systemFailure ? outcome.error : null,
        );
      }
      return done;
    });
  }

  /**
   * A call whose lease ran out lost its process. Idempotent tools run again; any other call is
   * failed as `interrupted` (never as denied) and, being a system failure, fails its run.
   */
  async recoverExpiredLeases(): Promise<number> {
    const candidates = await this.db
      .select({ id: toolCalls.id, runId: toolCalls.runId })
      .from(toolCalls)
      .where(and(eq(toolCalls.status, 'STARTED'), lt(toolCalls.leaseExpiresAt, new Date())));
    let recovered = 0;
    for (const candidate of candidates) {
      const done = await this.db.transaction(async (tx) => {
        const run = await this.runs.lock(tx, candidate.runId);
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
        if (call.tool?.annotations.idempotent) {
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
        if (run.status === 'RUNNING') await this.runs.end(tx, run, 'FAILED', WORKER_ACTOR, error);
        return true;
      });
      if (done) recovered += 1;
    }
    return recovered;
  }
}

function failed(call: ToolCallRow, error: ToolError, structured?: unknown): Outcome {
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
