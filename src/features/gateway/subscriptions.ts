import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { and, eq } from 'drizzle-orm';
import {
  endUpstreamSession,
  type McpServerConfig,
  openUpstreamSession,
  requestOn,
  type StoredUpstreamSession,
  sessionGone,
  UpstreamStream,
} from '../../bridge/mcp/index.js';
import type { Logger } from '../../core/logger.js';
import type { Db } from '../../db/client.js';
import { mcpSessions, mcpSubscriptions, mcpUpstreamSessions } from './tables.js';

/** How long a lost upstream stream waits before it is opened again, growing to the last. */
const RETRY_MS = [250, 1_000, 5_000, 30_000];
/** How long making the upstream session may take. */
const OPEN_TIMEOUT_MS = 20_000;

/** What the subscriptions need of the process's connection to one upstream server. */
export interface SubscribableServer {
  config: McpServerConfig;
  serverCapabilities(): Record<string, unknown> | null;
}

/**
 * Whether `/mcp/<server>` passes resource updates through: a Streamable HTTP upstream that offers
 * subscriptions. Over stdio each process runs its own child, so a subscription made through one
 * process is not the child another process would hear its updates from.
 */
export function subscribable(connection: SubscribableServer | undefined): connection is SubscribableServer {
  const resources = connection?.serverCapabilities()?.resources as { subscribe?: boolean } | undefined;
  return connection?.config.transport === 'STREAMABLE_HTTP' && resources?.subscribe === true;
}

/** The host GET streams of one host session on this process, and the upstream stream held for them. */
interface Watch {
  sessionId: string;
  config: McpServerConfig;
  servers: Set<Server>;
  stream: UpstreamStream | null;
  failures: number;
  timer: NodeJS.Timeout | null;
  stopped: boolean;
}

/**
 * A host session's resource subscriptions on `/mcp/<server>`, with no sticky sessions. Each host
 * session that subscribes, or opens a GET stream, gets an upstream session of its own, stored in
 * `mcp_upstream_sessions`: any process sends the host's `resources/subscribe` and `unsubscribe` on
 * it (so the upstream keeps the subscription, and answers as it would the host), and records the
 * URI in `mcp_subscriptions`. The process that holds the host's GET stream holds that upstream
 * session's GET stream, whose `notifications/resources/updated` it sends on the host's stream; it
 * opens it before the host's stream is answered, so an update made after a subscribe that was
 * answered reaches a host whose stream was open. A host that reconnects its stream to another
 * process (this one died) has it opened there. A lost upstream session (the server restarted or
 * expired it) is replaced by the next process that finds it gone, and subscribed again to every
 * recorded URI. Ending the host session ends the upstream one.
 */
export class GatewaySubscriptions {
  private readonly watches = new Map<string, Watch>();

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
  ) {}

  /** `resources/subscribe` of a host session, on its upstream session; recorded once the upstream accepted it. */
  async subscribe(sessionId: string, config: McpServerConfig, uri: string, signal: AbortSignal) {
    const answer = await this.onUpstream(sessionId, config, 'resources/subscribe', uri, signal);
    await this.db.insert(mcpSubscriptions).values({ sessionId, uri }).onConflictDoNothing();
    return answer;
  }

  /** `resources/unsubscribe` of a host session: no longer recorded, and sent on its upstream session. */
  async unsubscribe(sessionId: string, config: McpServerConfig, uri: string, signal: AbortSignal) {
    await this.db
      .delete(mcpSubscriptions)
      .where(and(eq(mcpSubscriptions.sessionId, sessionId), eq(mcpSubscriptions.uri, uri)));
    return this.onUpstream(sessionId, config, 'resources/unsubscribe', uri, signal);
  }

  /** The host session ended: its subscriptions are forgotten and its upstream session ended. */
  async end(sessionId: string, config: McpServerConfig | undefined): Promise<void> {
    await this.db.delete(mcpSubscriptions).where(eq(mcpSubscriptions.sessionId, sessionId));
    const [stored] = await this.db
      .delete(mcpUpstreamSessions)
      .where(eq(mcpUpstreamSessions.sessionId, sessionId))
      .returning();
    if (stored && config)
      await endUpstreamSession(config, stored).catch((error: unknown) =>
        this.logger.warn({ err: error, server: config.name }, 'ending an upstream session failed'),
      );
  }

  /**
   * A host GET stream of `sessionId` opened here (its SDK server `server`): until `closed` aborts,
   * the upstream session's updates are sent on it. Resolves once the upstream stream is open, or
   * failed (logged, and tried again), or after the open timeout.
   */
  async watch(sessionId: string, config: McpServerConfig, server: Server, closed: AbortSignal) {
    let watch = this.watches.get(sessionId);
    const first = !watch;
    if (!watch) {
      watch = {
        sessionId,
        config,
        servers: new Set(),
        stream: null,
        failures: 0,
        timer: null,
        stopped: false,
      };
      this.watches.set(sessionId, watch);
    }
    watch.servers.add(server);
    const current = watch;
    const release = () => {
      current.servers.delete(server);
      if (current.servers.size === 0) this.stop(current);
    };
    if (closed.aborted) return release();
    closed.addEventListener('abort', release, { once: true });
    if (!first) return;
    // The host's stream waits for the upstream's, but not on an upstream that does not answer.
    let timer: NodeJS.Timeout | undefined;
    const given = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, OPEN_TIMEOUT_MS);
    });
    await Promise.race([this.connect(current), given]);
    clearTimeout(timer);
  }

  /** Ends every upstream stream this process holds (the process stops). */
  async close(): Promise<void> {
    const all = [...this.watches.values()];
    for (const watch of all) this.stop(watch);
  }

  private stop(watch: Watch): void {
    watch.stopped = true;
    if (watch.timer) clearTimeout(watch.timer);
    if (this.watches.get(watch.sessionId) === watch) this.watches.delete(watch.sessionId);
    void watch.stream?.close();
    watch.stream = null;
  }

  /** Opens the upstream stream of a watch's host session, replacing a lost upstream session. */
  private async connect(watch: Watch): Promise<void> {
    try {
      if (!(await this.live(watch.sessionId))) return this.stop(watch);
      let stored = await this.upstreamOf(watch.sessionId, watch.config);
      let stream: UpstreamStream;
      try {
        stream = await this.open(watch, stored);
      } catch (error) {
        if (!sessionGone(error)) throw error;
        stored = await this.replace(watch.sessionId, watch.config, stored);
        stream = await this.open(watch, stored);
      }
      if (watch.stopped) return void stream.close();
      watch.stream = stream;
      watch.failures = 0;
    } catch (error) {
      if (watch.stopped) return;
      this.logger.warn(
        { err: error, server: watch.config.name, session: watch.sessionId },
        'the upstream stream of a host session could not be opened; trying again',
      );
      this.retry(watch);
    }
  }

  private open(watch: Watch, stored: StoredUpstreamSession): Promise<UpstreamStream> {
    return UpstreamStream.open(
      watch.config,
      stored,
      {
        notification: (notification) => {
          if (notification.method !== 'notifications/resources/updated' || watch.stopped) return;
          const params = notification.params as { uri: string };
          for (const server of watch.servers) void server.sendResourceUpdated(params).catch(() => {});
        },
        ended: () => {
          watch.stream = null;
          if (!watch.stopped) this.retry(watch);
        },
      },
      this.logger,
    );
  }

  private retry(watch: Watch): void {
    if (watch.stopped || watch.timer) return;
    const ms = RETRY_MS[Math.min(watch.failures, RETRY_MS.length - 1)]!;
    watch.failures += 1;
    watch.timer = setTimeout(() => {
      watch.timer = null;
      void this.connect(watch);
    }, ms);
    watch.timer.unref();
  }

  private async live(sessionId: string): Promise<boolean> {
    const [row] = await this.db
      .select({ endedAt: mcpSessions.endedAt })
      .from(mcpSessions)
      .where(eq(mcpSessions.id, sessionId));
    return row !== undefined && row.endedAt === null;
  }

  /** Sends one subscribe or unsubscribe on the host session's upstream session (a lost one is replaced first). */
  private async onUpstream(
    sessionId: string,
    config: McpServerConfig,
    method: string,
    uri: string,
    signal: AbortSignal,
  ) {
    const request = { method, params: { uri } };
    const stored = await this.upstreamOf(sessionId, config);
    try {
      return await requestOn(config, stored, request, signal);
    } catch (error) {
      if (!sessionGone(error)) throw error;
      return requestOn(config, await this.replace(sessionId, config, stored), request, signal);
    }
  }

  /** The host session's stored upstream session, or one made now. */
  private async upstreamOf(sessionId: string, config: McpServerConfig): Promise<StoredUpstreamSession> {
    const [row] = await this.db
      .select()
      .from(mcpUpstreamSessions)
      .where(eq(mcpUpstreamSessions.sessionId, sessionId));
    return row ?? this.replace(sessionId, config, null);
  }

  /**
   * Makes a new upstream session for a host session, in place of `lost` (null: its first),
   * subscribed to every URI the host session has recorded, and stores it. Of two processes doing
   * this at once, the first to store wins: the other ends the session it made and uses the winner's.
   */
  private async replace(
    sessionId: string,
    config: McpServerConfig,
    lost: StoredUpstreamSession | null,
  ): Promise<StoredUpstreamSession> {
    const made = await openUpstreamSession(config, OPEN_TIMEOUT_MS);
    if (!made)
      throw new Error(`the MCP server ${config.name} issues no sessions, so it keeps no subscriptions`);
    const recorded = await this.db
      .select({ uri: mcpSubscriptions.uri })
      .from(mcpSubscriptions)
      .where(eq(mcpSubscriptions.sessionId, sessionId));
    for (const { uri } of recorded)
      await requestOn(
        config,
        made,
        { method: 'resources/subscribe', params: { uri } },
        AbortSignal.timeout(OPEN_TIMEOUT_MS),
      ).catch((error: unknown) =>
        this.logger.warn(
          { err: error, server: config.name, uri },
          'subscribing a new upstream session again failed',
        ),
      );
    const won = lost
      ? await this.db
          .update(mcpUpstreamSessions)
          .set(made)
          .where(
            and(
              eq(mcpUpstreamSessions.sessionId, sessionId),
              eq(mcpUpstreamSessions.upstreamSessionId, lost.upstreamSessionId),
            ),
          )
          .returning()
      : await this.db
          .insert(mcpUpstreamSessions)
          .values({ sessionId, ...made })
          .onConflictDoNothing()
          .returning();
    if (won.length > 0) return made;
    void endUpstreamSession(config, made).catch(() => {});
    const [winner] = await this.db
      .select()
      .from(mcpUpstreamSessions)
      .where(eq(mcpUpstreamSessions.sessionId, sessionId));
    if (!winner) throw new Error('the host session ended while its upstream session was being made');
    return winner;
  }
}
