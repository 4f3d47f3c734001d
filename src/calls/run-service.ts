import { and, asc, desc, eq, inArray, like, or, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { likePattern, matchesAny, maySeeRun, userScopeOf } from '../core/access.js';
import { actorOf, type Principal } from '../core/auth.js';
import { callCancelled, errorResult } from '../core/call-results.js';
import { badInput, conflict, forbidden, notFound } from '../core/errors.js';
import type { NewJournalEvent } from '../core/journal-event.js';
import { parseInput } from '../core/parse-input.js';
import { deniedToolStrategies, type RunStatus } from '../core/run.js';
import type { ToolError } from '../core/tool-result.js';
import { isUuid } from '../core/uuid.js';
import type { Db } from '../db/client.js';
import { prebuilt } from '../db/prebuilt.js';
import type { Executor, Tx } from '../db/tx.js';
import { appendEvents } from '../journal/append.js';
import type { ResourceOwnership } from './resource-access.js';
import { resolveRunLimits } from './rules/run-limits.js';
import type { ProfileRunDefaultsService } from './run-defaults-service.js';
import { type RunRow, runs, runToolUsage, toolCalls } from './tables.js';

const id = z.string().trim().min(1).max(200);

export const createRunInputSchema = z.object({
  userId: id.nullish(),
  profileId: id.nullish(),
  planNodeId: id.nullish(),
  chatId: id.nullish(),
  workspaceId: id.nullish(),
  deniedToolStrategy: z.enum(deniedToolStrategies).nullish(),
  maxCalls: z.number().int().positive().nullish(),
  maxCallsPerTool: z.number().int().positive().nullish(),
});

/** Calls that have not reached an end state yet. */
export const openCallStatuses = ['REQUESTED', 'APPROVED', 'AWAITING_APPROVAL', 'STARTED'] as const;

/**
 * Agents see the runs their own token created; people the runs of the users they are bound to;
 * admins and hosts every run. A run outside that is NOT_FOUND, as if it did not exist.
 */
export function assertMayRead(principal: Principal, run: RunRow): void {
  if (principal.role === 'EXTENSION') throw forbidden('extensions do not read runs');
  if (!maySeeRun(principal, run)) throw notFound(`no run ${run.id}`);
}

/** The SQL form of `maySeeRun`, for lists; undefined when the principal sees every run. */
export function runScope(principal: Principal): SQL | undefined {
  if (principal.role === 'AGENT') return eq(runs.createdByToken, principal.tokenId);
  const scope = userScopeOf(principal);
  if (scope.all) return undefined;
  if (scope.patterns.length === 0) return sql`false`;
  return or(...scope.patterns.map((p) => like(runs.userId, likePattern(p))));
}

/**
 * The run's user, profile and plan node come from the token: an agent acts for the user it is
 * bound to and only on its profiles and plan nodes; hosts and admins name the user.
 */
function bindRun(principal: Principal, input: z.output<typeof createRunInputSchema>) {
  if (principal.role !== 'AGENT' || principal.legacyUnbound) {
    if (principal.role === 'HOST' && !input.userId)
      throw badInput('a HOST names the user the run is for: userId');
    return {
      userId: input.userId ?? null,
      profileId: input.profileId ?? null,
      planNodeId: input.planNodeId ?? null,
    };
  }
  if (input.userId && input.userId !== principal.userId)
    throw forbidden(`this token acts for user ${principal.userId}, not ${input.userId}`);
  const profileId = input.profileId ?? null;
  // Naming no profile escapes a PROFILE deny only as much as naming an unruled one would: so only `*` tokens may.
  if (
    profileId === null
      ? !principal.profiles.includes('*') && principal.profiles.length > 0
      : !matchesAny(principal.profiles, profileId)
  )
    throw forbidden(
      principal.profiles.length === 0
        ? 'this token may not name a profile'
        : `profile ${profileId ?? '(none)'} is not one of this token's profiles: ${principal.profiles.join(', ')}`,
    );
  const planNodeId = input.planNodeId ?? null;
  if (principal.planNodes && !matchesAny(principal.planNodes, planNodeId))
    throw forbidden(
      `plan node ${planNodeId ?? '(none)'} is not one of this token's plan nodes: ${principal.planNodes.join(', ')}`,
    );
  return { userId: principal.userId, profileId, planNodeId };
}

/** The run's row, locked: every writer of a run or its calls starts here. */
const lockRun = prebuilt((db) =>
  db
    .select()
    .from(runs)
    .where(eq(runs.id, sql.placeholder('runId')))
    .for('update')
    .limit(1),
);

export class RunService {
  constructor(
    private readonly db: Db,
    private readonly defaults: ProfileRunDefaultsService,
    private readonly ownership: ResourceOwnership,
  ) {}

  /**
   * The run's user, profile and plan node come from the token (bindRun); its limits from the
   * profile's run defaults, which an agent may only tighten; its workspace and chat must be its
   * user's. A workspace named for the first time is created for that user in the same transaction.
   */
  async create(raw: unknown, principal: Principal): Promise<RunRow> {
    const input = parseInput(createRunInputSchema, raw);
    const bound = bindRun(principal, input);
    return this.db.transaction(async (tx) => {
      const configured = await this.defaults.forProfile(tx, bound.profileId);
      const resolved = resolveRunLimits(
        configured,
        input,
        principal.role === 'AGENT' && !principal.legacyUnbound,
      );
      if (!resolved.ok) throw forbidden(resolved.message);
      if (input.workspaceId) await this.requireOwnWorkspace(tx, input.workspaceId, bound.userId);
      if (input.chatId) await this.requireOwnChat(tx, input.chatId, bound.userId);
      const [run] = await tx
        .insert(runs)
        .values({
          status: 'RUNNING',
          ...bound,
          chatId: input.chatId ?? null,
          workspaceId: input.workspaceId ?? null,
          ...resolved.limits,
          createdByToken: principal.tokenId,
          createdBy: actorOf(principal),
          // Millisecond precision (not the column default's microseconds) so that page cursors round-trip exactly.
          createdAt: new Date(),
        })
        .returning();
      await appendEvents(tx, [
        {
          type: 'run_started',
          runId: run!.id,
          actor: actorOf(principal),
          payload: {
            ...input,
            ...bound,
            ...resolved.limits,
            // Which run defaults applied (a profile's own row, `*`, or none), so the limits can be traced.
            runDefaults: configured?.profileId ?? null,
          },
        },
      ]);
      return run!;
    });
  }

  // "Another user" also when the workspace belongs to nobody, or the run to nobody: only a run
  // without a user may use a workspace without one, so ownerless data never leaks into a user's run.
  private async requireOwnWorkspace(tx: Tx, workspaceId: string, userId: string | null) {
    const { ownerUserId } = await this.ownership.claimWorkspace(tx, workspaceId, userId);
    if (ownerUserId !== userId) throw forbidden(`workspace ${workspaceId} belongs to another user`);
  }

  private async requireOwnChat(tx: Tx, chatId: string, userId: string | null) {
    const chat = await this.ownership.chatOwner(tx, chatId);
    if (!chat) throw notFound(`no chat ${chatId}`);
    if (chat.ownerUserId !== userId) throw forbidden(`chat ${chatId} belongs to another user`);
  }

  async get(runId: string, principal?: Principal): Promise<RunRow | null> {
    if (!isUuid(runId)) return null;
    const [run] = await this.db.select().from(runs).where(eq(runs.id, runId)).limit(1);
    if (run && principal) {
      try {
        assertMayRead(principal, run);
      } catch {
        return null;
      }
    }
    return run ?? null;
  }

  /** Newest first; `after`/`before` are (createdAt, id) keys of rows already seen. */
  async page(
    principal: Principal,
    args: {
      status?: RunStatus | null;
      after?: { at: Date; id: string } | null;
      before?: { at: Date; id: string } | null;
      limit: number;
      inverted: boolean;
    },
  ) {
    const conditions: SQL[] = [];
    if (args.status) conditions.push(eq(runs.status, args.status));
    const scope = runScope(principal);
    if (scope) conditions.push(scope);
    // Raw SQL parameters bypass column encoding: timestamps travel as ISO strings and are cast.
    if (args.after)
      conditions.push(
        sql`(${runs.createdAt}, ${runs.id}) < (${args.after.at.toISOString()}::timestamptz, ${args.after.id}::uuid)`,
      );
    if (args.before)
      conditions.push(
        sql`(${runs.createdAt}, ${runs.id}) > (${args.before.at.toISOString()}::timestamptz, ${args.before.id}::uuid)`,
      );
    const order = args.inverted ? [asc(runs.createdAt), asc(runs.id)] : [desc(runs.createdAt), desc(runs.id)];
    return this.db
      .select()
      .from(runs)
      .where(and(...conditions))
      .orderBy(...order)
      .limit(args.limit);
  }

  /** Locks the run row for the rest of the transaction: calls of one run are decided one at a time. */
  async lock(tx: Tx, runId: string): Promise<RunRow> {
    if (!isUuid(runId)) throw notFound(`no run ${runId}`);
    const [run] = await lockRun(tx, { runId });
    if (!run) throw notFound(`no run ${runId}`);
    return run;
  }

  cancel(runId: string, principal: Principal): Promise<RunRow> {
    return this.finish(runId, principal, 'CANCELLED');
  }

  complete(runId: string, principal: Principal): Promise<RunRow> {
    return this.finish(runId, principal, 'COMPLETED');
  }

  private finish(runId: string, principal: Principal, status: 'CANCELLED' | 'COMPLETED'): Promise<RunRow> {
    return this.db.transaction(async (tx) => {
      const run = await this.lock(tx, runId);
      assertMayRead(principal, run);
      if (run.status !== 'RUNNING')
        throw conflict(`run ${runId} is already ${run.status}`, { status: run.status });
      return this.end(tx, run, status, actorOf(principal), null);
    });
  }

  /**
   * Ends a locked run: open calls are cancelled (each with a result the model can read), then the
   * run event. Used for cancel, complete, and failures found while deciding or finishing a call.
   */
  async end(
    tx: Tx,
    run: RunRow,
    status: Exclude<RunStatus, 'RUNNING'>,
    actor: string,
    failure: ToolError | null,
  ) {
    const open = await tx
      .select()
      .from(toolCalls)
      .where(and(eq(toolCalls.runId, run.id), inArray(toolCalls.status, [...openCallStatuses])));
    const events: NewJournalEvent[] = [];
    for (const call of open) {
      const error = callCancelled(call.name);
      await tx
        .update(toolCalls)
        .set({
          status: 'CANCELLED',
          error,
          result: errorResult(call.id, error),
          finishedAt: new Date(),
          leaseOwner: null,
        })
        .where(eq(toolCalls.id, call.id));
      events.push({
        type: 'tool_call_cancelled',
        runId: run.id,
        callId: call.id,
        actor,
        payload: { previousStatus: call.status },
      });
    }
    const [ended] = await tx
      .update(runs)
      .set({ status, failure, finishedAt: new Date() })
      .where(eq(runs.id, run.id))
      .returning();
    const type =
      status === 'CANCELLED' ? 'run_cancelled' : status === 'COMPLETED' ? 'run_completed' : 'run_failed';
    events.push({ type, runId: run.id, actor, payload: failure ? { failure } : {} });
    await appendEvents(tx, events);
    return ended!;
  }

  /**
   * Per-tool and total calls that count against the run's budget, read under the run lock. They
   * come from run_tool_usage, counters a trigger keeps in the transaction that writes each call:
   * counting the run's calls here read every call it had made on every call it made, so a long
   * run's requests grew slower the longer it ran.
   */
  async usage(db: Executor, run: RunRow) {
    const rows = await db
      .select({ name: runToolUsage.toolName, calls: runToolUsage.calls })
      .from(runToolUsage)
      .where(eq(runToolUsage.runId, run.id));
    const callsByTool = new Map<string, number>();
    let totalCalls = 0;
    for (const r of rows) {
      if (r.calls === 0) continue;
      callsByTool.set(r.name, r.calls);
      totalCalls += r.calls;
    }
    return { maxCalls: run.maxCalls, maxCallsPerTool: run.maxCallsPerTool, totalCalls, callsByTool };
  }
}
