import { randomUUID } from 'node:crypto';
import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { openCallStatuses, type RunRow, type RunService } from '../../calls/run-service.js';
import { toolCalls } from '../../calls/tables.js';
import type { Principal } from '../../core/auth.js';
import { DomainError } from '../../core/errors.js';
import type { JournalEvent, NewJournalEvent } from '../../core/journal-event.js';
import type { Logger } from '../../core/logger.js';
import type { ToolError } from '../../core/tool-result.js';
import type { Db } from '../../db/client.js';
import { appendEvents } from '../../journal/append.js';
import type { JournalBus } from '../../journal/bus.js';
import type { ModelService, ModelTurnRow } from '../../model/service.js';
import {
  type ModelCallResult,
  type ModelConnection,
  type ModelConnectionService,
  ModelRequestError,
  type ProviderClient,
} from '../models/index.js';
import { type ModelOutputHub, outputOf, roundFinished, roundStarted } from './output.js';
import { type AgentStopReason, FINISH_TOOL, limitReached, runEndFor } from './rules/stop.js';
import type { AgentJobRow } from './service.js';
import { agentJobs, agentRounds } from './tables.js';

export const LOOP_ACTOR = 'system:agent-loop';

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
  /** Counts each model request by outcome (`ok`, `failed`, `cancelled`). */
  onModelRequest?: (connection: ModelConnection, outcome: 'ok' | 'failed' | 'cancelled') => void;
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

type Step = 'again' | 'wait' | 'done';

/** An answer and how long the request took, retries included. */
type Sent = ModelCallResult & { durationMs: number };

const failureOf = (code: string, message: string): ToolError => ({ kind: 'SYSTEM_FAILURE', code, message });

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
  private readonly requests = new Map<string, AbortController>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private sweeping: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly deps: AgentLoopDeps,
    private readonly options: AgentLoopOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.unsubscribe = this.deps.bus.subscribe((events) => this.onEvents(events));
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), this.options.pollMs);
    this.timer.unref();
  }

  /** Aborts the requests in flight here and gives their runs up at once, so another process goes on. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
    for (const controller of this.requests.values()) controller.abort(new Error('server shutting down'));
    await this.sweeping;
    await Promise.allSettled([...this.driving.values()]);
    await this.deps.db
      .update(agentJobs)
      .set({ leaseOwner: null, leaseExpiresAt: null })
      .where(eq(agentJobs.leaseOwner, this.workerId));
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

  private onEvents(events: JournalEvent[]): void {
    const runs = new Set<string>();
    for (const event of events) {
      if (!event.runId || !wakeEvents.has(event.type)) continue;
      if (event.type === 'run_cancelled' || event.type === 'run_failed' || event.type === 'run_completed')
        this.requests.get(event.runId)?.abort(new Error('the run ended'));
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
        for (const { runId } of free) void this.kick(runId);
      } catch (error) {
        this.deps.logger.error({ err: error }, 'agent loop sweep failed');
      } finally {
        this.sweeping = null;
      }
    })();
    return this.sweeping;
  }

  /** Claims the job (free, expired, or already ours) and renews the lease; null when another process has it. */
  private async claim(runId: string): Promise<AgentJobRow | null> {
    const now = new Date();
    const [job] = await this.deps.db
      .update(agentJobs)
      .set({
        leaseOwner: this.workerId,
        leaseExpiresAt: new Date(now.getTime() + this.options.leaseMs),
        updatedAt: now,
      })
      .where(
        and(
          eq(agentJobs.runId, runId),
          eq(agentJobs.status, 'RUNNING'),
          or(
            isNull(agentJobs.leaseOwner),
            lt(agentJobs.leaseExpiresAt, now),
            eq(agentJobs.leaseOwner, this.workerId),
          ),
        ),
      )
      .returning();
    return job ?? null;
  }

  private async drive(runId: string): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const job = await this.claim(runId);
      if (!job) return;
      const step = await this.step(job);
      if (step !== 'again') return;
    }
  }

  private async step(job: AgentJobRow): Promise<Step> {
    const run = await this.deps.runs.get(job.runId);
    if (!run) return 'done';
    if (run.status !== 'RUNNING') {
      await this.stopJob(job, await this.endedBecause(job, run), { runStatus: run.status });
      return 'done';
    }
    if (job.phase === 'WAIT') return this.afterCalls(job, run);
    return this.request(job, run);
  }

  /** workspace.finish completes the run itself (the tool says so); any other end came from outside the loop. */
  private async endedBecause(job: AgentJobRow, run: RunRow): Promise<AgentStopReason> {
    if (run.status === 'FAILED') return 'system_failure';
    if (run.status === 'COMPLETED') {
      const last = job.round > 0 ? await this.lastLoopTurn(job) : null;
      if (last && (await this.finished(run.id, last))) return 'finished';
    }
    return 'cancelled';
  }

  /** Waits (lease given up) while calls are open; then stops on workspace.finish, or moves on to the next request. */
  private async afterCalls(job: AgentJobRow, run: RunRow): Promise<Step> {
    const open = await this.deps.db
      .select({ id: toolCalls.id })
      .from(toolCalls)
      .where(and(eq(toolCalls.runId, run.id), inArray(toolCalls.status, [...openCallStatuses])))
      .limit(1);
    if (open.length > 0) {
      await this.release(job, 'WAIT');
      return 'wait';
    }
    const last = job.round > 0 ? await this.lastLoopTurn(job) : null;
    if (last && (await this.finished(run.id, last))) {
      await this.stopJob(job, 'finished', {});
      return 'done';
    }
    await this.deps.db
      .update(agentJobs)
      .set({ phase: 'REQUEST', updatedAt: new Date() })
      .where(and(eq(agentJobs.runId, job.runId), eq(agentJobs.leaseOwner, this.workerId)));
    return 'again';
  }

  private async lastLoopTurn(job: AgentJobRow): Promise<ModelTurnRow | null> {
    const [round] = await this.deps.db
      .select({ turnId: agentRounds.turnId })
      .from(agentRounds)
      .where(and(eq(agentRounds.runId, job.runId), eq(agentRounds.round, job.round)));
    if (!round) return null;
    const turns = await this.deps.models.turns(job.runId);
    return turns.find((t) => t.id === round.turnId) ?? null;
  }

  /** Whether the turn's calls include a workspace.finish that completed. */
  private async finished(runId: string, turn: ModelTurnRow): Promise<boolean> {
    if (turn.providerCallIds.length === 0) return false;
    const done = await this.deps.db
      .select({ id: toolCalls.id })
      .from(toolCalls)
      .where(
        and(
          eq(toolCalls.runId, runId),
          inArray(toolCalls.providerCallId, turn.providerCallIds),
          eq(toolCalls.name, FINISH_TOOL),
          eq(toolCalls.status, 'COMPLETED'),
        ),
      )
      .limit(1);
    return done.length > 0;
  }

  /** One round: the request modelRequest gives, sent with streaming; the answer stored as submitModelResponse stores it. */
  private async request(job: AgentJobRow, run: RunRow): Promise<Step> {
    const adopted = await this.adoptStoredTurn(job);
    if (adopted) return 'again';
    const limit = limitReached(job);
    if (limit) {
      await this.stopJob(job, limit, {});
      return 'done';
    }
    const connection = await this.deps.connections.get(job.connection);
    if (!connection) {
      await this.stopJob(job, 'system_failure', {
        message: `the model connection ${job.connection} no longer exists`,
      });
      return 'done';
    }
    const principal = job.principal as Principal;
    const round = job.round + 1;
    let body: Record<string, unknown>;
    try {
      ({ body } = await this.deps.models.modelRequest(
        {
          runId: run.id,
          provider: connection.wireFormat,
          ...(job.preset ? { preset: job.preset } : { presetName: job.presetName }),
        },
        principal,
      ));
    } catch (error) {
      if (!DomainError.is(error)) throw error;
      // A call opened since the wait ended (a person's call on the run): wait for it too.
      if (error.code === 'CONFLICT' && error.details?.pending) {
        await this.release(job, 'WAIT');
        return 'wait';
      }
      await this.stopJob(job, 'system_failure', { message: error.message, code: error.code });
      return 'done';
    }

    // Held through the answer and the calls submitting it runs at once (their tools may take a while).
    const renew = setInterval(() => void this.renew(job), Math.max(50, this.options.leaseMs / 3));
    renew.unref();
    try {
      return await this.round(job, run, connection, principal, round, body);
    } finally {
      clearInterval(renew);
    }
  }

  private async round(
    job: AgentJobRow,
    run: RunRow,
    connection: ModelConnection,
    principal: Principal,
    round: number,
    body: Record<string, unknown>,
  ): Promise<Step> {
    const result = await this.send(job, connection, round, body);
    if (result === 'cancelled') return this.stopped ? 'done' : 'again';
    if (result === 'failed') return 'done';
    if (!(await this.stillOurs(job))) return 'done';

    let stored: Awaited<ReturnType<ModelService['submit']>>;
    try {
      stored = await this.deps.models.submit(
        { runId: run.id, provider: connection.wireFormat, response: result.response },
        principal,
      );
    } catch (error) {
      if (!DomainError.is(error)) throw error;
      // The run ended meanwhile: the next step stops the loop with the run's reason.
      if (error.code === 'CONFLICT' && error.details?.status) return 'again';
      await this.stopJob(job, 'system_failure', { message: error.message, code: error.code });
      return 'done';
    }
    const recorded = await this.recordRound(job, round, stored.turn, stored.calls.length, result);
    if (!recorded) {
      await this.stopJob(job, 'system_failure', {
        message: `the model repeated the response of an earlier round (turn ${stored.turn.id})`,
      });
      return 'done';
    }
    this.deps.output.emit(roundFinished(run.id, round, stored.turn.id, stored.calls.length));
    if (stored.calls.length === 0) {
      await this.stopJob(job, 'no_calls', {});
      return 'done';
    }
    return 'again';
  }

  /**
   * A turn stored after the last recorded round was stored by a process that died before it could
   * record the round: that turn is the round (its usage unknown), and it is not asked for again.
   */
  private async adoptStoredTurn(job: AgentJobRow): Promise<boolean> {
    const turns = await this.deps.models.turns(job.runId);
    const latest = turns[turns.length - 1];
    if (!latest || latest.createdAt < job.createdAt) return false;
    const [known] = await this.deps.db
      .select({ id: agentRounds.id })
      .from(agentRounds)
      .where(eq(agentRounds.turnId, latest.id));
    if (known) return false;
    await this.recordRound(job, job.round + 1, latest, latest.providerCallIds.length, null);
    return true;
  }

  /** The HTTP request; failures after the retries are journaled and end the run. */
  private async send(
    job: AgentJobRow,
    connection: ModelConnection,
    round: number,
    body: Record<string, unknown>,
  ): Promise<Sent | 'cancelled' | 'failed'> {
    const controller = new AbortController();
    this.requests.set(job.runId, controller);
    const journaled: Array<Promise<unknown>> = [];
    const started = Date.now();
    this.deps.output.emit(roundStarted(job.runId, round));
    try {
      const result = await this.deps.client.send(connection, body, {
        signal: controller.signal,
        onDelta: (delta) => {
          const event = outputOf(job.runId, round, delta);
          if (event) this.deps.output.emit(event);
          if (delta.kind === 'retry')
            journaled.push(
              this.journal([
                failedEvent(job.runId, {
                  round,
                  connection: connection.name,
                  attempt: delta.attempt,
                  status: delta.status,
                  reason: delta.reason,
                  retryInMs: delta.delayMs,
                }),
              ]),
            );
        },
      });
      await Promise.all(journaled);
      this.deps.onModelRequest?.(connection, 'ok');
      return { ...result, durationMs: Date.now() - started };
    } catch (error) {
      await Promise.allSettled(journaled);
      if (!ModelRequestError.is(error)) throw error;
      if (error.kind === 'cancelled') {
        this.deps.onModelRequest?.(connection, 'cancelled');
        return 'cancelled';
      }
      this.deps.onModelRequest?.(connection, 'failed');
      const detail = { status: error.status, kind: error.kind, message: error.message };
      await this.stopJob(job, 'model_request_failed', detail, [
        failedEvent(job.runId, {
          round,
          connection: connection.name,
          attempt: error.attempts,
          status: error.status,
          kind: error.kind,
          reason: error.reason,
          retryInMs: null,
        }),
      ]);
      return 'failed';
    } finally {
      this.requests.delete(job.runId);
    }
  }

  private async journal(events: NewJournalEvent[]): Promise<void> {
    try {
      await this.deps.db.transaction((tx) => appendEvents(tx, events));
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'journaling a model request failure failed');
    }
  }

  /** The round's turn, usage and phase in one transaction; false when the turn was an earlier round's. */
  private async recordRound(
    job: AgentJobRow,
    round: number,
    turn: ModelTurnRow,
    calls: number,
    result: Sent | null,
  ): Promise<boolean> {
    const usage = result?.usage ?? null;
    return this.deps.db.transaction(async (tx) => {
      const [inserted] = await tx
        .insert(agentRounds)
        .values({
          runId: job.runId,
          round,
          turnId: turn.id,
          calls,
          inputTokens: usage?.inputTokens ?? null,
          outputTokens: usage?.outputTokens ?? null,
          reasoningTokens: usage?.reasoningTokens ?? null,
          attempts: result?.attempts ?? 0,
          durationMs: result?.durationMs ?? 0,
        })
        .onConflictDoNothing()
        .returning();
      if (!inserted) return false;
      await tx
        .update(agentJobs)
        .set({
          round,
          phase: 'WAIT',
          inputTokens: sql`${agentJobs.inputTokens} + ${usage?.inputTokens ?? 0}`,
          outputTokens: sql`${agentJobs.outputTokens} + ${usage?.outputTokens ?? 0}`,
          reasoningTokens: sql`${agentJobs.reasoningTokens} + ${usage?.reasoningTokens ?? 0}`,
          updatedAt: new Date(),
        })
        .where(eq(agentJobs.runId, job.runId));
      await appendEvents(tx, [
        {
          type: 'agent_round_finished',
          runId: job.runId,
          actor: LOOP_ACTOR,
          payload: {
            round,
            turnId: turn.id,
            calls,
            usage,
            attempts: result?.attempts ?? null,
            adopted: result === null,
          },
        },
      ]);
      return true;
    });
  }

  private async renew(job: AgentJobRow): Promise<void> {
    try {
      await this.deps.db
        .update(agentJobs)
        .set({ leaseExpiresAt: new Date(Date.now() + this.options.leaseMs) })
        .where(and(eq(agentJobs.runId, job.runId), eq(agentJobs.leaseOwner, this.workerId)));
    } catch (error) {
      this.deps.logger.warn({ err: error, runId: job.runId }, 'agent loop lease renewal failed');
    }
  }

  /** Whether this process still holds the job (a stalled process may have lost it to another). */
  private async stillOurs(job: AgentJobRow): Promise<boolean> {
    const [row] = await this.deps.db
      .select({ owner: agentJobs.leaseOwner, status: agentJobs.status })
      .from(agentJobs)
      .where(eq(agentJobs.runId, job.runId));
    return row?.owner === this.workerId && row.status === 'RUNNING';
  }

  private async release(job: AgentJobRow, phase: 'WAIT' | 'REQUEST'): Promise<void> {
    await this.deps.db
      .update(agentJobs)
      .set({ phase, leaseOwner: null, leaseExpiresAt: null, updatedAt: new Date() })
      .where(and(eq(agentJobs.runId, job.runId), eq(agentJobs.leaseOwner, this.workerId)));
  }

  /**
   * Stops the loop with its reason, journaled before what it does to the run: a finished loop
   * completes the run, a limit or failure fails it, a cancel leaves it as it is.
   */
  private async stopJob(
    job: AgentJobRow,
    reason: AgentStopReason,
    detail: Record<string, unknown>,
    before: NewJournalEvent[] = [],
  ): Promise<void> {
    await this.deps.db.transaction(async (tx) => {
      const run = await this.deps.runs.lock(tx, job.runId);
      const [stopped] = await tx
        .update(agentJobs)
        .set({
          status: 'STOPPED',
          stopReason: reason,
          leaseOwner: null,
          leaseExpiresAt: null,
          updatedAt: new Date(),
        })
        .where(and(eq(agentJobs.runId, job.runId), eq(agentJobs.status, 'RUNNING')))
        .returning();
      if (!stopped) return;
      await appendEvents(tx, [
        ...before,
        {
          type: 'agent_run_stopped',
          runId: job.runId,
          actor: LOOP_ACTOR,
          payload: {
            reason,
            rounds: stopped.round,
            usage: {
              inputTokens: stopped.inputTokens,
              outputTokens: stopped.outputTokens,
              reasoningTokens: stopped.reasoningTokens,
            },
            ...detail,
          },
        },
      ]);
      const end = runEndFor(reason);
      if (end === null || run.status !== 'RUNNING') return;
      const message = typeof detail.message === 'string' ? detail.message : stopMessage(reason, stopped);
      await this.deps.runs.end(
        tx,
        run,
        end,
        LOOP_ACTOR,
        end === 'FAILED' ? failureOf(reason, message) : null,
      );
    });
  }
}

function stopMessage(reason: AgentStopReason, job: AgentJobRow): string {
  switch (reason) {
    case 'max_rounds':
      return `the agent loop reached its limit of ${job.maxRounds} rounds`;
    case 'token_budget':
      return `the agent loop used ${job.inputTokens + job.outputTokens} tokens, reaching its budget of ${job.maxTokens}`;
    case 'model_request_failed':
      return 'the model request failed after its retries';
    default:
      return `the agent loop stopped: ${reason}`;
  }
}

function failedEvent(runId: string, payload: Record<string, unknown>): NewJournalEvent {
  return { type: 'model_request_failed', runId, actor: LOOP_ACTOR, payload };
}
