import { randomUUID } from 'node:crypto';
import { and, eq, isNull, lt, or } from 'drizzle-orm';
import type { RunService } from '../../calls/index.js';
import type { RunRow } from '../../calls/tables.js';
import type { Principal } from '../../core/auth.js';
import { DomainError } from '../../core/errors.js';
import type { JournalEvent } from '../../core/journal-event.js';
import type { Logger } from '../../core/logger.js';
import type { Db } from '../../db/client.js';
import type { JournalBus } from '../../journal/bus.js';
import type { ToolDeclarations } from '../../model/providers/types.js';
import type { ModelService } from '../../model/service.js';
import type { ModelConnection, ModelConnectionService, ProviderClient } from '../models/index.js';
import { AgentJobs, LeaseLost } from './jobs.js';
import { type ModelOutputHub, roundFinished } from './output.js';
import { callsState, unrecordedTurn } from './round-state.js';
import { type AgentStopReason, limitReached } from './rules/stop.js';
import { ModelRequests, type ModelRequestsDeps } from './send.js';
import type { AgentJobRow } from './service.js';
import { agentJobs } from './tables.js';

/** How often at most the sweep looks at a loop waiting for its calls. */
const WAIT_RECHECK_MS = 30_000;

export interface AgentLoopOptions {
  /** How long a claim holds before another process may take the run over. */
  leaseMs: number;
  /** How often jobs without a live lease are looked for (after a crash, or a missed event). */
  pollMs: number;
}

export interface AgentLoopDeps {
  db: Db;
  runs: RunService;
  models: ModelService;
  connections: ModelConnectionService;
  client: ProviderClient;
  bus: JournalBus;
  output: ModelOutputHub;
  logger: Logger;
  onModelRequest?: ModelRequestsDeps['onModelRequest'];
}

/** Events after which a waiting loop may go on, or must stop. */
const wakeEvents = new Set<JournalEvent['type']>([
  'agent_run_started',
  'tool_call_completed',
  'tool_call_failed',
  'tool_call_denied',
  'tool_call_cancelled',
  'tool_call_expired',
  'run_cancelled',
  'run_failed',
  'run_completed',
]);

/**
 * What a step leaves: claim the job again, wait for an event, stop driving, or go on at once with
 * the job row as the step's last write left it (still held here: no claim needed to read it back).
 */
type Step = 'again' | 'wait' | 'done' | AgentJobRow;

/** One round's model request, ready to send: whose job and run, the connection it goes to, its body. */
interface RoundRequest {
  job: AgentJobRow;
  run: RunRow;
  connection: ModelConnection;
  principal: Principal;
  round: number;
  body: Record<string, unknown>;
  /** The tool names the request offered: its answer is parsed against them. */
  names: ToolDeclarations['names'];
}

/**
 * Drives agent loops. A job is claimed with a lease (a conditional UPDATE, like the dispatcher's
 * calls), so one process at a time drives a run; each step reads the job and the run afresh and
 * commits its effect before the next, so a process that dies leaves the job at the step it was on.
 * While calls are open the lease is given up: their end (a journal event, on every process) or the
 * sweep wakes the loop again, wherever it runs.
 */
export class AgentLoop {
  readonly workerId = `agent-loop-${randomUUID()}`;
  private readonly driving = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private sweeping: Promise<void> | null = null;
  private stopped = false;
  /**
   * Runs with a running job as far as this process knows: only their calls' events wake the loop,
   * since waking for any other run costs a claim attempt (a write) per event. Loaded at start,
   * after subscribing so no start is missed, then kept by the jobs' start and stop events; until
   * it is loaded every event wakes. A stopped run left in it costs only a failed claim.
   */
  private readonly agentRuns = new Set<string>();
  private agentRunsLoaded = false;
  private readonly jobs: AgentJobs;
  private readonly requests: ModelRequests;

  constructor(
    private readonly deps: AgentLoopDeps,
    private readonly options: AgentLoopOptions,
  ) {
    this.jobs = new AgentJobs({ ...deps, workerId: this.workerId, leaseMs: options.leaseMs });
    this.requests = new ModelRequests({ ...deps, jobs: this.jobs });
  }

  start(): void {
    this.stopped = false;
    this.unsubscribe = this.deps.bus.subscribe((events) => this.onEvents(events));
    void this.loadAgentRuns();
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), this.options.pollMs);
    this.timer.unref();
  }

  /** Aborts the requests in flight here and gives their runs up at once, so another process goes on. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
    this.requests.abortAll(new Error('server shutting down'));
    await this.sweeping;
    await Promise.allSettled([...this.driving.values()]);
    await this.jobs.releaseAll();
  }

  /** Drives the run's job now (if no other process holds it); a drive under way here runs once more. */
  kick(runId: string): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const current = this.driving.get(runId);
    if (current) {
      this.again.add(runId);
      return current;
    }
    const work = (async () => {
      try {
        do {
          this.again.delete(runId);
          await this.drive(runId);
        } while (this.again.has(runId) && !this.stopped);
      } catch (error) {
        this.deps.logger.error({ err: error, runId }, 'agent loop step failed');
      } finally {
        this.driving.delete(runId);
      }
    })();
    this.driving.set(runId, work);
    return work;
  }

  private async loadAgentRuns(): Promise<void> {
    try {
      const running = await this.deps.db
        .select({ runId: agentJobs.runId })
        .from(agentJobs)
        .where(eq(agentJobs.status, 'RUNNING'));
      for (const { runId } of running) this.agentRuns.add(runId);
      this.agentRunsLoaded = true;
    } catch (error) {
      this.deps.logger.error(
        { err: error },
        'loading the running agent jobs failed; every event wakes the loop',
      );
    }
  }

  private onEvents(events: JournalEvent[]): void {
    const runs = new Set<string>();
    for (const event of events) {
      if (!event.runId) continue;
      if (event.type === 'agent_run_started') this.agentRuns.add(event.runId);
      if (event.type === 'agent_run_stopped') this.agentRuns.delete(event.runId);
      if (event.type === 'run_cancelled' || event.type === 'run_failed' || event.type === 'run_completed')
        this.requests.abort(event.runId, new Error('the run ended'));
      if (!wakeEvents.has(event.type)) continue;
      if (this.agentRunsLoaded && !this.agentRuns.has(event.runId)) continue;
      runs.add(event.runId);
    }
    for (const runId of runs) void this.kick(runId);
  }

  sweep(): Promise<void> {
    if (this.sweeping || this.stopped) return this.sweeping ?? Promise.resolve();
    this.sweeping = (async () => {
      try {
        const now = Date.now();
        // A waiting job is woken by its calls' events; the sweep looks at it again only now and
        // then, for an event no process was up to see.
        const recheckBefore = new Date(now - Math.max(WAIT_RECHECK_MS, this.options.pollMs * 10));
        const free = await this.deps.db
          .select({ runId: agentJobs.runId })
          .from(agentJobs)
          .where(
            and(
              eq(agentJobs.status, 'RUNNING'),
              or(
                lt(agentJobs.leaseExpiresAt, new Date(now)),
                and(
                  isNull(agentJobs.leaseOwner),
                  or(eq(agentJobs.phase, 'REQUEST'), lt(agentJobs.updatedAt, recheckBefore)),
                ),
              ),
            ),
          )
          .limit(100);
        for (const { runId } of free) {
          this.agentRuns.add(runId);
          void this.kick(runId);
        }
      } catch (error) {
        this.deps.logger.error({ err: error }, 'agent loop sweep failed');
      } finally {
        this.sweeping = null;
      }
    })();
    return this.sweeping;
  }

  private async drive(runId: string): Promise<void> {
    let job = await this.jobs.claim(runId);
    while (job && !this.stopped) {
      const step = await this.step(job);
      if (step === 'wait' || step === 'done') return;
      job = step === 'again' ? await this.jobs.claim(runId) : this.jobs.held(step);
    }
  }

  private async step(job: AgentJobRow): Promise<Step> {
    const run = await this.deps.runs.get(job.runId);
    if (!run) return 'done';
    if (run.status !== 'RUNNING') {
      await this.jobs.stop(job, await this.endedBecause(job, run), { runStatus: run.status });
      return 'done';
    }
    if (job.phase === 'WAIT') return this.afterCalls(job, run);
    return this.request(job, run);
  }

  /** workspace.finish completes the run itself (the tool says so); any other end came from outside the loop. */
  private async endedBecause(job: AgentJobRow, run: RunRow): Promise<AgentStopReason> {
    if (run.status === 'FAILED') return 'system_failure';
    if (run.status === 'COMPLETED') {
      if (job.round > 0 && (await callsState(this.deps.db, job)).finished) return 'finished';
    }
    return 'cancelled';
  }

  /**
   * Waits (lease given up) while calls are open; then stops on workspace.finish, or goes on to the
   * next request with the run just read (a cancel meanwhile aborts the request or fails its submit).
   */
  private async afterCalls(job: AgentJobRow, run: RunRow): Promise<Step> {
    const { open, finished, unrecorded } = await callsState(this.deps.db, job);
    if (open) {
      await this.jobs.release(job, 'WAIT');
      return 'wait';
    }
    if (finished) {
      await this.jobs.stop(job, 'finished', {});
      return 'done';
    }
    const next = await this.jobs.toRequest(job);
    return next ? this.request(next, run, unrecorded) : 'again';
  }

  /** One round: the request modelRequest gives, sent with streaming; the answer stored as submitModelResponse stores it. */
  /** `mayAdopt` false: the step just saw no turn without its round, so none is looked for again. */
  private async request(job: AgentJobRow, run: RunRow, mayAdopt = true): Promise<Step> {
    if (mayAdopt && (await this.adoptStoredTurn(job))) return 'again';
    const limit = limitReached(job);
    if (limit) {
      await this.jobs.stop(job, limit, {});
      return 'done';
    }
    const connection = await this.deps.connections.get(job.connection);
    if (!connection) {
      await this.jobs.stop(job, 'system_failure', {
        message: `the model connection ${job.connection} no longer exists`,
      });
      return 'done';
    }
    const principal = job.principal as Principal;
    const round = job.round + 1;
    let request: Awaited<ReturnType<ModelService['requestFor']>>;
    try {
      request = await this.deps.models.requestFor(
        run,
        {
          provider: connection.wireFormat,
          ...(job.preset ? { preset: job.preset } : { presetName: job.presetName }),
        },
        principal,
      );
    } catch (error) {
      if (!DomainError.is(error)) throw error;
      // A call opened since the wait ended (a person's call on the run): wait for it too.
      if (error.code === 'CONFLICT' && error.details?.pending) {
        await this.jobs.release(job, 'WAIT');
        return 'wait';
      }
      await this.jobs.stop(job, 'system_failure', { message: error.message, code: error.code });
      return 'done';
    }

    // Held through the answer and the calls submitting it runs at once (their tools may take a while).
    const renew = setInterval(() => void this.jobs.renew(job), Math.max(50, this.options.leaseMs / 3));
    renew.unref();
    try {
      return await this.round({ job, run, connection, principal, round, ...request });
    } finally {
      clearInterval(renew);
    }
  }

  private async round({ job, run, connection, principal, round, body, names }: RoundRequest): Promise<Step> {
    const result = await this.requests.send(job, connection, round, body);
    if (result === 'cancelled') return this.stopped ? 'done' : 'again';
    if (result === 'failed') return 'done';

    let stored: Awaited<ReturnType<ModelService['submit']>>;
    // The round is recorded with its turn, in one transaction: a turn found by its hash (the
    // model repeated an earlier response) records nothing.
    let recorded: AgentJobRow | null = null;
    try {
      stored = await this.deps.models.submitFor(
        run,
        { runId: run.id, provider: connection.wireFormat, response: result.response },
        principal,
        {
          offered: names,
          onStored: async (tx, turn) => {
            recorded = await this.jobs.recordRoundIn(tx, job, round, turn, result);
          },
        },
      );
    } catch (error) {
      if (error instanceof LeaseLost) return 'done';
      if (!DomainError.is(error)) throw error;
      // The run ended meanwhile: the next step stops the loop with the run's reason.
      if (error.code === 'CONFLICT' && error.details?.status) return 'again';
      await this.jobs.stop(job, 'system_failure', { message: error.message, code: error.code });
      return 'done';
    }
    if (recorded === null) {
      if (!(await this.jobs.stillOurs(job))) return 'done';
      await this.jobs.stop(job, 'system_failure', {
        message: `the model repeated the response of an earlier round (turn ${stored.turn.id})`,
      });
      return 'done';
    }
    this.deps.output.emit(roundFinished(run.id, round, stored.turn.id, stored.calls.length));
    if (stored.calls.length === 0) {
      await this.jobs.stop(job, 'no_calls', {});
      return 'done';
    }
    return recorded;
  }

  /**
   * A turn stored after the last recorded round was stored by a process that died before it could
   * record the round: that turn is the round (its usage unknown), and it is not asked for again.
   */
  private async adoptStoredTurn(job: AgentJobRow): Promise<boolean> {
    const turn = await unrecordedTurn(this.deps.db, job);
    if (!turn) return false;
    await this.jobs.recordRound(job, job.round + 1, turn);
    return true;
  }
}
