import { randomUUID } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { RunService } from '../../calls/index.js';
import type { Principal } from '../../core/auth.js';
import { DomainError } from '../../core/errors.js';
import type { Db } from '../../db/client.js';
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

const UNKNOWN_CLIENT: ClientInfo = { name: 'unknown', version: 'unknown' };

/**
 * Sessions and the run each conversation's calls belong to, all in Postgres so that any process
 * answers any request. A session's run is made at its first call; a request without a session uses
 * the token's run of the day for that client and endpoint; `X-Run-Id` names a run the token created.
 */
export class GatewaySessions {
  constructor(
    private readonly db: Db,
    private readonly runs: RunService,
  ) {}

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
    return row!;
  }

  /** The live session with this id of this token on this endpoint; null for any other (404 to the host). */
  async find(id: string, principal: Principal, server: string): Promise<McpSessionRow | null> {
    const [row] = await this.db
      .select()
      .from(mcpSessions)
      .where(
        and(
          eq(mcpSessions.id, id),
          eq(mcpSessions.tokenId, principal.tokenId),
          eq(mcpSessions.server, server),
        ),
      )
      .limit(1);
    return row && row.endedAt === null ? row : null;
  }

  async end(id: string): Promise<void> {
    await this.db
      .update(mcpSessions)
      .set({ endedAt: new Date() })
      .where(and(eq(mcpSessions.id, id), isNull(mcpSessions.endedAt)));
  }

  static clientOf(session: McpSessionRow | null): ClientInfo {
    return session ? { name: session.clientName, version: session.clientVersion } : UNKNOWN_CLIENT;
  }

  /**
   * The run this request's call belongs to. `fresh` asks for a new one because the remembered run
   * no longer takes calls (it was completed or cancelled from the console).
   */
  async runFor(ctx: GatewayContext, fresh = false): Promise<string> {
    if (ctx.runHeader) return this.namedRun(ctx, ctx.runHeader);
    if (ctx.session?.runId && !fresh) return ctx.session.runId;
    const key = ctx.session
      ? `session:${ctx.session.id}`
      : `day:${ctx.server}:${ctx.client.name}:${new Date().toISOString().slice(0, 10)}`;
    if (!ctx.session && !fresh) {
      const [known] = await this.db
        .select({ runId: mcpRuns.runId })
        .from(mcpRuns)
        .where(and(eq(mcpRuns.tokenId, ctx.principal.tokenId), eq(mcpRuns.key, key)))
        .limit(1);
      if (known) return known.runId;
    }
    const run = await this.runs.create(
      { profileId: ctx.profileId, deniedToolStrategy: 'RETURN_DENIED_RESULT' },
      ctx.principal,
    );
    const values = {
      tokenId: ctx.principal.tokenId,
      key,
      runId: run.id,
      clientName: ctx.client.name,
      clientVersion: ctx.client.version,
      server: ctx.server || null,
      sessionId: ctx.session?.id ?? null,
    };
    await this.db
      .insert(mcpRuns)
      .values(values)
      .onConflictDoUpdate({ target: [mcpRuns.tokenId, mcpRuns.key], set: { runId: run.id } });
    if (ctx.session) {
      await this.db.update(mcpSessions).set({ runId: run.id }).where(eq(mcpSessions.id, ctx.session.id));
      ctx.session = { ...ctx.session, runId: run.id };
    }
    return run.id;
  }

  private async namedRun(ctx: GatewayContext, runId: string): Promise<string> {
    const run = await this.runs.get(runId, ctx.principal).catch(() => null);
    if (!run || run.createdByToken !== ctx.principal.tokenId)
      throw new DomainError('NOT_FOUND', `X-Run-Id: no run ${runId} that this token created`);
    await this.db
      .insert(mcpRuns)
      .values({
        tokenId: ctx.principal.tokenId,
        key: `run:${run.id}`,
        runId: run.id,
        clientName: ctx.client.name,
        clientVersion: ctx.client.version,
        server: ctx.server || null,
        sessionId: ctx.session?.id ?? null,
      })
      .onConflictDoNothing();
    return run.id;
  }

  /** What the console shows on a run the gateway made or used. */
  async clientOfRun(runId: string) {
    const [row] = await this.db.select().from(mcpRuns).where(eq(mcpRuns.runId, runId)).limit(1);
    return row ?? null;
  }
}
