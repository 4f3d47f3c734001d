import { asc, eq } from 'drizzle-orm';
import type { RunService } from '../../calls/index.js';
import type { RunRow } from '../../calls/tables.js';
import { actorOf, type Principal } from '../../core/auth.js';
import { conflict, notFound } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import type { Db } from '../../db/client.js';
import { appendEvents } from '../../journal/append.js';
import { namedPreset } from '../../model/context/preset.js';
import type { ModelConnectionService } from '../models/index.js';
import { DEFAULT_MAX_ROUNDS, type StartAgentRunInput, startAgentRunInputSchema } from './input.js';
import { agentJobs, agentRounds } from './tables.js';

export type AgentJobRow = typeof agentJobs.$inferSelect;
export type AgentRoundRow = typeof agentRounds.$inferSelect;

/** Called once a job is committed, so that this process starts driving it at once. */
export type KickHook = (runId: string) => void;

/**
 * Starting and reading agent loops. The loop itself (loop.ts) is driven from the job row alone;
 * this service only creates jobs, under the run's lock, and shows them.
 */
/** How many runs' prompts are kept: enough for the loops one process drives at once. */
const PROMPTS_KEPT = 1_000;

export class AgentRunService {
  private kick: KickHook = () => {};
  /**
   * A job's prompt never changes once written (one job per run, never updated or removed), and
   * every request of the loop reads it: kept here instead of read once per round.
   */
  private readonly prompts = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly runs: RunService,
    private readonly connections: ModelConnectionService,
  ) {}

  onStart(hook: KickHook): void {
    this.kick = hook;
  }

  /**
   * A new run from `run`, or the caller's own RUNNING run `runId`; the connection must exist and
   * the preset must parse, so a loop that cannot send its first request is refused before it starts.
   */
  async start(raw: StartAgentRunInput | unknown, principal: Principal): Promise<AgentJobRow> {
    const input = parseInput(startAgentRunInputSchema, raw);
    // A run the caller may not read is NOT_FOUND before anything else is said about it.
    const existing = input.runId ? await this.undrivenRun(input.runId, principal) : null;
    await this.connections.require(input.connection);
    // A name no preset has would fail the first request; refused here, before a run is made.
    if (input.presetName != null) namedPreset(input.presetName);
    const run = existing ?? (await this.runs.create(input.run, principal));
    const job = await this.db.transaction(async (tx) => {
      const locked = await this.runs.lock(tx, run.id);
      if (locked.status !== 'RUNNING')
        throw conflict(`run ${run.id} is ${locked.status}`, { status: locked.status });
      const [created] = await tx
        .insert(agentJobs)
        .values({
          runId: run.id,
          status: 'RUNNING',
          // Waiting first: a run given by id may have calls still open; with none, the first request follows.
          phase: 'WAIT',
          connection: input.connection,
          preset: input.preset ?? null,
          presetName: input.presetName ?? null,
          prompt: input.prompt,
          maxRounds: input.maxRounds ?? DEFAULT_MAX_ROUNDS,
          maxTokens: input.maxTokens ?? null,
          principal,
        })
        .onConflictDoNothing()
        .returning();
      if (!created) throw conflict(`run ${run.id} already has an agent loop`, { runId: run.id });
      await appendEvents(tx, [
        {
          type: 'agent_run_started',
          runId: run.id,
          actor: actorOf(principal),
          payload: {
            connection: created.connection,
            presetName: created.presetName,
            inlinePreset: created.preset !== null,
            maxRounds: created.maxRounds,
            maxTokens: created.maxTokens,
            promptChars: created.prompt.length,
          },
        },
      ]);
      return created;
    });
    this.kick(job.runId);
    return job;
  }

  private async undrivenRun(runId: string, principal: Principal): Promise<RunRow> {
    const run = await this.runs.get(runId, principal);
    if (!run) throw notFound(`no run ${runId}`);
    const [driven] = await this.db
      .select({ runId: agentJobs.runId })
      .from(agentJobs)
      .where(eq(agentJobs.runId, run.id));
    if (driven) throw conflict(`run ${run.id} already has an agent loop`, { runId: run.id });
    return run;
  }

  /** The loop of a run the principal may read; null when there is none (or the run is not theirs). */
  async get(runId: string, principal: Principal): Promise<AgentJobRow | null> {
    const run = await this.runs.get(runId, principal);
    if (!run) return null;
    const [job] = await this.db.select().from(agentJobs).where(eq(agentJobs.runId, run.id));
    return job ?? null;
  }

  rounds(runId: string): Promise<AgentRoundRow[]> {
    return this.db
      .select()
      .from(agentRounds)
      .where(eq(agentRounds.runId, runId))
      .orderBy(asc(agentRounds.round));
  }

  /** The prompt the context frame ends with (only runs an agent loop drives have one). */
  async promptOf(runId: string): Promise<string | null> {
    const kept = this.prompts.get(runId);
    if (kept !== undefined) return kept;
    const [job] = await this.db
      .select({ prompt: agentJobs.prompt })
      .from(agentJobs)
      .where(eq(agentJobs.runId, runId));
    if (!job) return null;
    if (this.prompts.size >= PROMPTS_KEPT) this.prompts.delete(this.prompts.keys().next().value!);
    this.prompts.set(runId, job.prompt);
    return job.prompt;
  }
}
