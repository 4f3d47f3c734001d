import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { JournalEvent, NewJournalEvent } from '../../core/journal-event.js';
import type { Logger } from '../../core/logger.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import type { Db } from '../../db/client.js';
import type { Tx } from '../../db/tx.js';
import { appendEvents, journaledTransaction } from '../../journal/append.js';
import type { JournalBus } from '../../journal/bus.js';
import type { RegistryService } from '../registry-service.js';
import type { RunService } from '../run-service.js';
import { type RunRow, runs as runRows, type ToolCallRow, toolCalls } from '../tables.js';
import type { ToolExecutor } from '../tool-contract.js';
import { DEFAULT_APPROVAL_EXPIRY_WARNING_MS, expireApprovals } from './approvals.js';
import { type ExecutionDeps, type ExecutionOptions, executeCall } from './execute-call.js';
import { type Ran, runInTransaction, toolSpecIn, type WriteRan } from './in-transaction.js';
import type { CallToRun } from './invocation.js';
import { type LandingDeps, landOutcome, WORKER_ACTOR } from './land-outcome.js';
import { recoverExpiredLeases } from './lease-recovery.js';
import { callById } from './readable-call.js';
import { SweepSchedule } from './sweep-timing.js';

export interface DispatcherOptions extends ExecutionOptions {
  /** How long a claim holds before another process may recover the call. */
  leaseMs: number;
  /**
   * How often the background loop reads whether work fell due that no event announced (one
   * read-only statement); deadlines the journal's events announce wake it on time.
   */
  pollMs: number;
  /** A ready call this old was orphaned by its requester (crash between commit and dispatch). */
  orphanAfterMs: number;
  /** How long before a pending call expires its `tool_call_expiring` event fires (0: never). */
  approvalExpiryWarningMs: number;
}

export const defaultDispatcherOptions: DispatcherOptions = {
  leaseMs: 30_000,
  defaultTimeoutMs: 60_000,
  pollMs: 5_000,
  orphanAfterMs: 5_000,
  maxTotalTimeoutMs: 600_000,
  settleAfterAbortMs: 1_000,
  approvalExpiryWarningMs: DEFAULT_APPROVAL_EXPIRY_WARNING_MS,
};

/** What the dispatcher runs calls with: the store, their runs and tools, and the journal's bus. */
export interface DispatcherDeps {
  db: Db;
  runs: RunService;
  registry: RegistryService;
  executors: ToolExecutor[];
  bus: JournalBus;
  logger: Logger;
}

/**
 * Runs calls exactly once across any number of processes: a call is claimed by a conditional
 * UPDATE (or FOR UPDATE SKIP LOCKED when looking for work) that sets a lease; the lease is renewed
 * while the tool runs; completion only lands while this process still holds it.
 */
export class Dispatcher {
  readonly workerId = `worker-${randomUUID()}`;
  private readonly running = new Map<string, AbortController>();
  /** The executions under way here, by call: a requester whose call the sweep took waits for its end. */
  private readonly executions = new Map<string, Promise<ToolCallRow | null>>();
  /** Every dispatch under way in this process, so that stop() can wait for them to land. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private unsubscribe: (() => void) | null = null;
  private sweeping: Promise<void> | null = null;
  private readonly schedule: SweepSchedule;
  private stopped = false;

  private readonly execution: ExecutionDeps;
  private readonly landing: LandingDeps;

  private readonly db: Db;
  private readonly runs: RunService;
  private readonly registry: RegistryService;
  private readonly executors: ToolExecutor[];
  private readonly bus: JournalBus;
  private readonly logger: Logger;

  constructor(
    { db, runs, registry, executors, bus, logger }: DispatcherDeps,
    private readonly options: DispatcherOptions = defaultDispatcherOptions,
  ) {
    this.db = db;
    this.runs = runs;
    this.registry = registry;
    this.executors = executors;
    this.bus = bus;
    this.logger = logger;
    this.execution = { db, runs, registry, executors, logger, options };
    this.landing = { db, runs, logger, workerId: this.workerId };
    this.schedule = new SweepSchedule({ db, logger, options, sweep: () => this.sweep() });
  }

  /**
   * Background work: recovery now, then a sweep whenever work falls due (known from the events
   * every process sees, and from a read every poll); cancellations abort local calls.
   */
  start(): void {
    this.unsubscribe = this.bus.subscribe((events) => this.onEvents(events));
    this.schedule.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.schedule.stop();
    this.unsubscribe?.();
    for (const controller of this.running.values()) controller.abort(new Error('server shutting down'));
    await this.sweeping;
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Shutdown's first step: no more claiming (the poll stops), while calls already running go on.
   * True once they have all landed, false when `ms` passed first.
   */
  async drain(ms: number): Promise<boolean> {
    this.stopped = true;
    this.schedule.stop();
    await this.sweeping;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const landed = Promise.allSettled([...this.inFlight]).then(() => true as const);
    const done = await Promise.race([landed, limit]);
    clearTimeout(timer);
    return done;
  }

  /**
   * Gives up the calls still running here at shutdown: their leases expire now and name another
   * owner, so this process's late outcomes are discarded and the next sweep anywhere recovers them
   * (requeued or interrupted, as after a crash) without waiting for the lease to run out.
   */
  async releaseLeases(): Promise<number> {
    const released = await this.db
      .update(toolCalls)
      .set({ leaseOwner: `${this.workerId}:released`, leaseExpiresAt: new Date() })
      .where(and(eq(toolCalls.leaseOwner, this.workerId), eq(toolCalls.status, 'STARTED')))
      .returning({ id: toolCalls.id });
    return released.length;
  }

  private onEvents(events: JournalEvent[]): void {
    for (const event of events) {
      if (event.type === 'tool_call_cancelled' && event.callId)
        this.running.get(event.callId)?.abort(new Error('cancelled'));
    }
    this.schedule.onEvents(events);
  }

  sweep(): Promise<void> {
    if (this.sweeping || this.stopped) return this.sweeping ?? Promise.resolve();
    this.schedule.sweeping();
    this.sweeping = (async () => {
      try {
        await this.expireApprovals();
        await this.recoverExpiredLeases();
        for (;;) {
          const claimed = await this.claimNext();
          if (!claimed) break;
          if (claimed !== 'landed') void this.track(this.execute(claimed.external));
        }
      } catch (error) {
        this.logger.error({ err: error }, 'dispatcher sweep failed');
      } finally {
        this.sweeping = null;
      }
    })();
    return this.sweeping;
  }

  /** The columns that mark a call as started here, under a lease. */
  startColumns(now: Date) {
    return {
      status: 'STARTED' as const,
      leaseOwner: this.workerId,
      leaseExpiresAt: new Date(now.getTime() + this.options.leaseMs),
      startedAt: now,
    };
  }

  private claimSet(now: Date) {
    return { ...this.startColumns(now), attempts: sql`${toolCalls.attempts} + 1` };
  }

  startedEvent(call: CallToRun): NewJournalEvent {
    return {
      type: 'tool_call_started',
      runId: call.runId,
      callId: call.id,
      actor: WORKER_ACTOR,
      payload: { worker: this.workerId, attempt: call.attempts },
    };
  }

  /** The executor that runs `spec` keeps all its effects in this database (see ToolExecutor.runsInTransaction). */
  runsInTransaction(spec: ToolSpec): boolean {
    return this.executorFor(spec)?.runsInTransaction?.(spec) ?? false;
  }

  private executorFor(spec: ToolSpec): ToolExecutor | undefined {
    return this.executors.find((e) => e.canExecute(spec));
  }

  /** See InlineDispatch.runIn: the executor that runs `spec` is one that `runsInTransaction`. */
  runIn(tx: Tx, run: RunRow, call: CallToRun, spec: ToolSpec, write: WriteRan): Promise<Ran> {
    return runInTransaction(
      { ...this.execution, ...this.landing },
      { tx, run, call, spec, executor: this.executorFor(spec)! },
      write,
    );
  }

  /**
   * Claims, runs and lands a ready call in one transaction: run row first (as every writer
   * locks), then the call's, so a concurrent dispatcher waits and then finds it done.
   */
  private dispatchInTransaction(callId: string, runId: string, spec: ToolSpec) {
    return journaledTransaction(this.db, async (tx) =>
      this.runReadyIn(tx, await this.runs.lock(tx, runId), callId, spec),
    );
  }

  /** Runs the call if it is still ready, locking its row in `tx`; otherwise returns it as it stands. */
  private async runReadyIn(tx: Tx, run: RunRow, callId: string, spec: ToolSpec): Promise<ToolCallRow | null> {
    const [ready] = await tx
      .select()
      .from(toolCalls)
      .where(and(eq(toolCalls.id, callId), inArray(toolCalls.status, ['REQUESTED', 'APPROVED'])))
      .for('update');
    if (!ready) return (await tx.select().from(toolCalls).where(eq(toolCalls.id, callId)))[0] ?? null;
    return this.runLockedIn(tx, run, ready, spec);
  }

  /**
   * Runs a ready call in `tx`, which holds its run's row lock and the call's, and writes its row
   * once with its start and its result.
   */
  private async runLockedIn(tx: Tx, run: RunRow, ready: ToolCallRow, spec: ToolSpec): Promise<ToolCallRow> {
    const draft = { ...ready, attempts: ready.attempts + 1 };
    await appendEvents(tx, [this.startedEvent(draft)]);
    const ran = await this.runIn(tx, run, draft, spec, async (columns) => {
      const [row] = await tx
        .update(toolCalls)
        .set({ ...columns, attempts: draft.attempts, leaseOwner: null, leaseExpiresAt: null })
        .where(eq(toolCalls.id, ready.id))
        .returning();
      return row!;
    });
    return ran.row;
  }

  private async claimIn(tx: Tx, callId: string): Promise<ToolCallRow | null> {
    const [call] = await tx
      .update(toolCalls)
      .set(this.claimSet(new Date()))
      .where(and(eq(toolCalls.id, callId), inArray(toolCalls.status, ['REQUESTED', 'APPROVED'])))
      .returning();
    if (!call) return null;
    await appendEvents(tx, [this.startedEvent(call)]);
    return call;
  }

  /** Claims one specific ready call; null when someone else has it or it is not ready. */
  async claim(callId: string): Promise<ToolCallRow | null> {
    return this.db.transaction((tx) => this.claimIn(tx, callId));
  }

  /**
   * Approved calls, and ready calls whose requester never dispatched them. One whose tool runs in
   * its transaction is run and landed here, in the claim's transaction; its run's row is taken
   * only if free (waiting for it while holding the call's lock could deadlock with a
   * cancellation, which locks run then calls), and otherwise the next sweep tries again.
   */
  private async claimNext(): Promise<{ external: ToolCallRow } | 'landed' | null> {
    return journaledTransaction(this.db, async (tx) => {
      const orphaned = new Date(Date.now() - this.options.orphanAfterMs);
      const [candidate] = await tx
        .select()
        .from(toolCalls)
        .where(
          sql`${toolCalls.status} = 'APPROVED' or (${toolCalls.status} = 'REQUESTED' and ${toolCalls.requestedAt} < ${orphaned.toISOString()}::timestamptz)`,
        )
        .orderBy(toolCalls.requestedAt)
        .limit(1)
        .for('update', { skipLocked: true });
      if (!candidate) return null;
      const spec = await toolSpecIn(tx, candidate.name);
      if (spec && this.runsInTransaction(spec)) {
        const [run] = await tx
          .select()
          .from(runRows)
          .where(eq(runRows.id, candidate.runId))
          .for('update', { skipLocked: true });
        if (!run) return null;
        await this.runLockedIn(tx, run, candidate, spec);
        return 'landed';
      }
      return { external: (await this.claimIn(tx, candidate.id))! };
    });
  }

  /** Claims and runs a call in this process, returning it finished (or as it stands if another process has it). */
  dispatch(callId: string): Promise<ToolCallRow | null> {
    return this.track(
      (async () => {
        const call = await callById(this.db, callId);
        const spec = call && (await this.registry.get(call.name));
        if (call && spec && this.runsInTransaction(spec))
          return this.dispatchInTransaction(callId, call.runId, spec);
        const claimed = await this.claim(callId);
        if (!claimed) return this.ranHere(callId);
        return this.execute(claimed);
      })(),
    );
  }

  /** See EagerDispatch: the request's transaction started it here; no claim is needed. */
  runStarted(call: ToolCallRow, run: RunRow): Promise<ToolCallRow | null> {
    return this.track(this.execute(call, run));
  }

  /**
   * A call someone else claimed, as it stands; if that was this process's own sweep (which picks
   * up approved calls, a granted one included, as soon as they commit), its end, so that the
   * requester still answers with the finished call. The sweep's claim commits a moment before its
   * execution is registered, so that moment is waited for, briefly.
   */
  private async ranHere(callId: string): Promise<ToolCallRow | null> {
    const call = await callById(this.db, callId);
    if (call?.status !== 'STARTED' || call.leaseOwner !== this.workerId) return call;
    for (let tick = 0; tick < 100 && !this.executions.has(callId); tick++) await sleep(1);
    return (await this.executions.get(callId)) ?? callById(this.db, callId);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => {});
    return work;
  }

  private execute(call: ToolCallRow, run?: RunRow): Promise<ToolCallRow | null> {
    const work = this.executeHere(call, run);
    this.executions.set(call.id, work);
    void work.finally(() => this.executions.delete(call.id)).catch(() => {});
    return work;
  }

  private async executeHere(call: ToolCallRow, run?: RunRow): Promise<ToolCallRow | null> {
    const controller = new AbortController();
    this.running.set(call.id, controller);
    const renew = setInterval(() => void this.renewLease(call.id), Math.max(50, this.options.leaseMs / 3));
    renew.unref();
    const started = Date.now();
    try {
      const outcome = await executeCall(this.execution, call, controller, run);
      return await landOutcome(this.landing, call, outcome, Date.now() - started);
    } catch (error) {
      this.logger.error({ err: error, callId: call.id }, 'finishing a tool call failed');
      return callById(this.db, call.id);
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

  /** Pending approvals whose time ran out end as EXPIRED; those about to get their one warning. */
  expireApprovals(): Promise<{ expired: number; warned: number }> {
    return expireApprovals(this.db, this.options.approvalExpiryWarningMs);
  }

  /** See recoverExpiredLeases in lease-recovery.ts. */
  recoverExpiredLeases(): Promise<number> {
    return recoverExpiredLeases(this.db, this.runs, (spec) => this.runsInTransaction(spec));
  }
}
