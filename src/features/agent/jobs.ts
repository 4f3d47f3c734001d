import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { RunService } from '../../calls/index.js';
import type { NewJournalEvent } from '../../core/journal-event.js';
import type { Logger } from '../../core/logger.js';
import type { ToolError } from '../../core/tool-result.js';
import type { Db } from '../../db/client.js';
import type { Tx } from '../../db/tx.js';
import { appendEvents } from '../../journal/append.js';
import type { ModelTurnRow } from '../../model/tables.js';
import type { ModelCallResult } from '../models/index.js';
import { type AgentStopReason, runEndFor } from './rules/stop.js';
import type { AgentJobRow } from './service.js';
import { agentJobs, agentRounds } from './tables.js';

export const LOOP_ACTOR = 'system:agent-loop';

/** An answer and how long the request took, retries included. */
export type Sent = ModelCallResult & { durationMs: number };

export interface AgentJobsDeps {
  db: Db;
  runs: RunService;
  logger: Logger;
  /** The loop process this lease holder claims jobs for. */
  workerId: string;
  /** How long a claim holds before another process may take the run over. */
  leaseMs: number;
}

/**
 * Thrown inside the transaction that stores a round's turn when this process no longer holds the
 * job: the turn is rolled back with it, so a process that lost the run stores nothing.
 */
export class LeaseLost extends Error {
  constructor(runId: string) {
    super(`the agent loop of run ${runId} is driven by another process`);
  }
}

const failureOf = (code: string, message: string): ToolError => ({ kind: 'SYSTEM_FAILURE', code, message });

/**
 * One process's hold on agent job rows and its bookkeeping on them: every write that could race another
 * process is conditional on the lease (or on the job still running), so a process that lost the job
 * changes nothing.
 */
export class AgentJobs {
  constructor(private readonly deps: AgentJobsDeps) {}

  /** Claims the job (free, expired, or already ours) and renews the lease; null when another process has it. */
  async claim(runId: string): Promise<AgentJobRow | null> {
    const now = new Date();
    const [job] = await this.deps.db
      .update(agentJobs)
      .set({
        leaseOwner: this.deps.workerId,
        leaseExpiresAt: new Date(now.getTime() + this.deps.leaseMs),
        updatedAt: now,
      })
      .where(
        and(
          eq(agentJobs.runId, runId),
          eq(agentJobs.status, 'RUNNING'),
          or(
            isNull(agentJobs.leaseOwner),
            lt(agentJobs.leaseExpiresAt, now),
            eq(agentJobs.leaseOwner, this.deps.workerId),
          ),
        ),
      )
      .returning();
    return job ?? null;
  }

  /** The row a held job's last write returned, when it is still this process's to go on with. */
  held(job: AgentJobRow): AgentJobRow | null {
    return job.leaseOwner === this.deps.workerId && job.status === 'RUNNING' ? job : null;
  }

  async renew(job: AgentJobRow): Promise<void> {
    try {
      await this.deps.db
        .update(agentJobs)
        .set({ leaseExpiresAt: new Date(Date.now() + this.deps.leaseMs) })
        .where(and(eq(agentJobs.runId, job.runId), eq(agentJobs.leaseOwner, this.deps.workerId)));
    } catch (error) {
      this.deps.logger.warn({ err: error, runId: job.runId }, 'agent loop lease renewal failed');
    }
  }

  /** Whether this process still holds the job (a stalled process may have lost it to another). */
  async stillOurs(job: AgentJobRow): Promise<boolean> {
    const [row] = await this.deps.db
      .select({ owner: agentJobs.leaseOwner, status: agentJobs.status })
      .from(agentJobs)
      .where(eq(agentJobs.runId, job.runId));
    return row?.owner === this.deps.workerId && row.status === 'RUNNING';
  }

  async release(job: AgentJobRow, phase: 'WAIT' | 'REQUEST'): Promise<void> {
    await this.deps.db
      .update(agentJobs)
      .set({ phase, leaseOwner: null, leaseExpiresAt: null, updatedAt: new Date() })
      .where(and(eq(agentJobs.runId, job.runId), eq(agentJobs.leaseOwner, this.deps.workerId)));
  }

  /** Gives up every job this process holds, so another process goes on with them at once. */
  async releaseAll(): Promise<void> {
    await this.deps.db
      .update(agentJobs)
      .set({ leaseOwner: null, leaseExpiresAt: null })
      .where(eq(agentJobs.leaseOwner, this.deps.workerId));
  }

  /** The job's row while it still runs under this process's lease. */
  private runningHere(job: AgentJobRow) {
    return and(
      eq(agentJobs.runId, job.runId),
      eq(agentJobs.status, 'RUNNING'),
      eq(agentJobs.leaseOwner, this.deps.workerId),
    );
  }

  /**
   * Moves a held job on from waiting for its calls to its next request, renewing the lease as a
   * claim would; the job as it now is, or null when another process took it meanwhile.
   */
  async toRequest(job: AgentJobRow): Promise<AgentJobRow | null> {
    const now = new Date();
    const [next] = await this.deps.db
      .update(agentJobs)
      .set({ phase: 'REQUEST', leaseExpiresAt: new Date(now.getTime() + this.deps.leaseMs), updatedAt: now })
      .where(this.runningHere(job))
      .returning();
    return next ?? null;
  }

  /** Journals beside a request in flight: failing to record a retry must not fail the request itself. */
  async journal(events: NewJournalEvent[]): Promise<void> {
    try {
      await this.deps.db.transaction((tx) => appendEvents(tx, events));
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'journaling a model request failure failed');
    }
  }
  /** A turn adopted as its round (see recordRoundIn), in a transaction of its own; false when the job was lost. */
  async recordRound(job: AgentJobRow, round: number, turn: ModelTurnRow): Promise<boolean> {
    try {
      await this.deps.db.transaction((tx) => this.recordRoundIn(tx, job, round, turn, null));
      return true;
    } catch (error) {
      if (error instanceof LeaseLost) return false;
      throw error;
    }
  }

  /**
   * The round's turn, usage and phase, with its journal event, in the transaction given (the one
   * that stores the turn): the job as it now is. Throws LeaseLost, rolling the transaction back,
   * when another process holds the job or recorded the round: checked here, in the same
   * transaction, rather than by a read before it.
   */
  async recordRoundIn(
    tx: Tx,
    job: AgentJobRow,
    round: number,
    turn: ModelTurnRow,
    result: Sent | null,
  ): Promise<AgentJobRow> {
    const usage = result?.usage ?? null;
    const calls = turn.providerCallIds.length;
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
    if (!inserted) throw new LeaseLost(job.runId);
    const [recorded] = await tx
      .update(agentJobs)
      .set({
        round,
        phase: 'WAIT',
        inputTokens: sql`${agentJobs.inputTokens} + ${usage?.inputTokens ?? 0}`,
        outputTokens: sql`${agentJobs.outputTokens} + ${usage?.outputTokens ?? 0}`,
        reasoningTokens: sql`${agentJobs.reasoningTokens} + ${usage?.reasoningTokens ?? 0}`,
        updatedAt: new Date(),
      })
      .where(this.runningHere(job))
      .returning();
    if (!recorded) throw new LeaseLost(job.runId);
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
    return recorded;
  }

  /**
   * Stops the loop with its reason, journaled before what it does to the run: a finished loop
   * completes the run, a limit or failure fails it, a cancel leaves it as it is.
   */
  async stop(
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

export function failedEvent(runId: string, payload: Record<string, unknown>): NewJournalEvent {
  return { type: 'model_request_failed', runId, actor: LOOP_ACTOR, payload };
}
