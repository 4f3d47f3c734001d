import { randomUUID } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { RunService } from '../../calls/index.js';
import { runs } from '../../calls/tables.js';
import type { Principal } from '../../core/auth.js';
import { DomainError } from '../../core/errors.js';
import type { Db } from '../../db/client.js';
import type { Invalidations } from '../../journal/invalidations.js';
import { type McpSessionRow, mcpRuns, mcpSessions } from './tables.js';

export interface ClientInfo {
  name: string;
  version: string;
}

/** What a request of the gateway knows about who is calling and through which conversation. */
export interface GatewayContext {
  principal: Principal;
  /** `''` for `/mcp`, else the upstream server. */
  server: string;
  profileId: string | null;
  session: McpSessionRow | null;
  /** The run named by `X-Run-Id`, if any. */
  runHeader: string | null;
  client: ClientInfo;
}

/** `X-Run-Id` names no run this token created: the call is answered with an error result saying so. */
export class RunRefused extends DomainError {
  constructor(runId: string) {
    super('NOT_FOUND', `X-Run-Id: no run ${runId} that this token created`);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const UNKNOWN_CLIENT: ClientInfo = { name: 'unknown', version: 'unknown' };

/** Live sessions kept per process; hosts that never DELETE theirs would otherwise grow it forever. */
const KEPT_SESSIONS = 10_000;

/**
 * Sessions and the run each conversation's calls belong to, all in Postgres so that any process
 * answers any request. A session's run is made at its first call; a request without a session uses
 * the token's run of the day for that client and endpoint; `X-Run-Id` names a run the token created.
 *
 * Every request of a session names it, so each process keeps the live sessions it has seen instead
 * of reading the row per request. Ending one is the only change another process must obey at once:
 * it notifies 'mcp-sessions' and every process drops what it kept. A session's run, set once, is
 * not notified: a process that kept the session without it finds it through `mcp_runs` and keeps it.
 */
export class GatewaySessions {
  private readonly kept = new Map<string, McpSessionRow>();
  private generation = 0;

  constructor(
    private readonly db: Db,
    private readonly runService: RunService,
    private readonly changes: Invalidations,
  ) {
    changes.on('mcp-sessions', () => {
      this.generation += 1;
      this.kept.clear();
    });
  }

  async open(input: {
    principal: Principal;
    server: string;
    profileId: string | null;
    protocolVersion: string;
    client: ClientInfo;
    capabilities: Record<string, unknown>;
  }): Promise<McpSessionRow> {
    const [row] = await this.db
      .insert(mcpSessions)
      .values({
        id: randomUUID(),
        tokenId: input.principal.tokenId,
        server: input.server,
        profileId: input.profileId,
        protocolVersion: input.protocolVersion,
        clientName: input.client.name,
        clientVersion: input.client.version,
        clientCapabilities: input.capabilities,
      })
      .returning();
    this.keep(row!);
    return row!;
  }

  /** The live session with this id of this token on this endpoint; null for any other (404 to the host). */
  async find(id: string, principal: Principal, server: string): Promise<McpSessionRow | null> {
    const row = await this.row(id);
    return row && row.tokenId === principal.tokenId && row.server === server && row.endedAt === null
      ? row
      : null;
  }

  async end(id: string): Promise<void> {
    await this.changes.transaction(async (tx) => {
      await tx
        .update(mcpSessions)
        .set({ endedAt: new Date() })
        .where(and(eq(mcpSessions.id, id), isNull(mcpSessions.endedAt)));
      await this.changes.notify(tx, 'mcp-sessions');
    });
  }

  /** The kept row, else the table's (kept unless an end this process sent or overtook the read may apply). */
  private async row(id: string): Promise<McpSessionRow | null> {
    const settled = !this.changes.unsettled('mcp-sessions');
    const kept = settled ? this.kept.get(id) : undefined;
    if (kept) return kept;
    const generation = this.generation;
    const [row] = await this.db.select().from(mcpSessions).where(eq(mcpSessions.id, id)).limit(1);
    if (row && row.endedAt === null && settled && generation === this.generation) this.keep(row);
    return row ?? null;
  }

  private keep(row: McpSessionRow): void {
    this.kept.delete(row.id);
    if (this.kept.size >= KEPT_SESSIONS) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(row.id, row);
  }

  static clientOf(session: McpSessionRow | null): ClientInfo {
    return session ? { name: session.clientName, version: session.clientVersion } : UNKNOWN_CLIENT;
  }

  /**
   * The run this request's call belongs to. `ended` is the run the conversation had when that run
   * stopped taking calls (completed or cancelled from the console): a new one replaces it.
   *
   * Two first requests of one conversation may both find no run and both make one: the
   * conversation's row in `mcp_runs` (its primary key, or a compare-and-set on the run it replaces)
   * lets one win, and the other completes its own empty run and takes the winner's.
   */
  async runFor(ctx: GatewayContext, ended: string | null = null): Promise<string> {
    if (ctx.runHeader) return this.namedRun(ctx, ctx.runHeader);
    if (ctx.session?.runId && ctx.session.runId !== ended) return ctx.session.runId;
    const key = ctx.session
      ? `session:${ctx.session.id}`
      : `day:${ctx.server}:${ctx.client.name}:${new Date().toISOString().slice(0, 10)}`;
    const conversation = and(eq(mcpRuns.tokenId, ctx.principal.tokenId), eq(mcpRuns.key, key));
    const [known] = await this.db.select({ runId: mcpRuns.runId }).from(mcpRuns).where(conversation).limit(1);
    let runId = known && known.runId !== ended ? known.runId : null;
    if (!runId) {
      const run = await this.runService.create(
        { profileId: ctx.profileId, deniedToolStrategy: 'RETURN_DENIED_RESULT' },
        ctx.principal,
      );
      const won = known
        ? await this.db
            .update(mcpRuns)
            .set({ runId: run.id })
            .where(and(conversation, eq(mcpRuns.runId, known.runId)))
            .returning({ runId: mcpRuns.runId })
        : await this.db
            .insert(mcpRuns)
            .values({
              tokenId: ctx.principal.tokenId,
              key,
              runId: run.id,
              clientName: ctx.client.name,
              clientVersion: ctx.client.version,
              server: ctx.server || null,
              sessionId: ctx.session?.id ?? null,
            })
            .onConflictDoNothing()
            .returning({ runId: mcpRuns.runId });
      if (won.length > 0) runId = run.id;
      else {
        await this.runService.complete(run.id, ctx.principal);
        const [winner] = await this.db.select({ runId: mcpRuns.runId }).from(mcpRuns).where(conversation);
        runId = winner!.runId;
      }
    }
    if (ctx.session && ctx.session.runId !== runId) {
      await this.db.update(mcpSessions).set({ runId }).where(eq(mcpSessions.id, ctx.session.id));
      ctx.session = { ...ctx.session, runId };
      if (this.kept.has(ctx.session.id)) this.keep(ctx.session);
    }
    return runId;
  }

  /** The run `X-Run-Id` names: one this token created (else NOT_FOUND), recorded for the console once. */
  private async namedRun(ctx: GatewayContext, runId: string): Promise<string> {
    const refused = new RunRefused(runId);
    if (!UUID.test(runId)) throw refused;
    const key = `run:${runId}`;
    const [found] = await this.db
      .select({ createdByToken: runs.createdByToken, recorded: mcpRuns.key })
      .from(runs)
      .leftJoin(mcpRuns, and(eq(mcpRuns.tokenId, ctx.principal.tokenId), eq(mcpRuns.key, key)))
      .where(eq(runs.id, runId))
      .limit(1);
    if (!found || found.createdByToken !== ctx.principal.tokenId) throw refused;
    if (found.recorded === null)
      await this.db
        .insert(mcpRuns)
        .values({
          tokenId: ctx.principal.tokenId,
          key,
          runId,
          clientName: ctx.client.name,
          clientVersion: ctx.client.version,
          server: ctx.server || null,
          sessionId: ctx.session?.id ?? null,
        })
        .onConflictDoNothing();
    return runId;
  }

  /** What the console shows on a run the gateway made or used. */
  async clientOfRun(runId: string) {
    const [row] = await this.db.select().from(mcpRuns).where(eq(mcpRuns.runId, runId)).limit(1);
    return row ?? null;
  }
}
