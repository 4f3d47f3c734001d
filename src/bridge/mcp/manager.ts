import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { canonicalJson } from '../../core/canonical-json.js';
import { notFound } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { Db } from '../../db/client.js';
import type { JournalBus } from '../../journal/bus.js';
import type { Invalidations } from '../../journal/invalidations.js';
import { type ConnectionDeps, McpConnection } from './connection.js';
import {
  type ConnectionOptions,
  defaultConnectionOptions,
  idleStatus,
  type McpServerStatus,
} from './connection-status.js';
import type { SyncChanges } from './registry-sync.js';
import { McpRelays } from './relay.js';
import type { McpServerConfig } from './rules/mcp-server.js';
import { mcpConnections, mcpServers } from './tables.js';

/** What the manager needs from the process: where servers and presence live, and how changes travel. */
export interface McpManagerDeps {
  db: Db;
  /** Registry writes notify every process's registry cache through it. */
  changes: Invalidations;
  bus: JournalBus;
  logger: Logger;
}

/** Whether a server is connected to any process, as other processes see it. */
export type ServerPresence = 'CONNECTED' | 'DISCONNECTED' | 'DISABLED' | 'UNKNOWN';

export interface PresenceOptions {
  /** How long a presence row counts without renewal (a killed process's rows simply expire). */
  presenceTtlMs: number;
  /** How often live connections renew their rows. */
  presenceRenewMs: number;
}

export const defaultPresenceOptions: PresenceOptions = { presenceTtlMs: 30_000, presenceRenewMs: 10_000 };

// userCredential too: a call reads it from its connection's config, so a change must replace the connection.
const connectionKey = (c: McpServerConfig) =>
  canonicalJson([c.transport, c.command, c.args, c.env, c.cwd, c.url, c.headers, c.userCredential]);

/**
 * This process's connections, one per enabled server. Configuration lives in the database; a
 * change made by any process is journaled (`mcp_server_changed`) and every process reconciles
 * its own connection when the event reaches it, so several processes on one Postgres each hold
 * their own connection to each server.
 */
export class McpConnectionManager {
  /** Which host request of the MCP gateway each upstream call of this process relays to. */
  readonly relays = new McpRelays();
  private readonly connections = new Map<string, McpConnection>();
  /** Reconciliations of one server run one after another. */
  private readonly queues = new Map<string, Promise<void>>();
  private unsubscribe: (() => void) | null = null;
  private started = false;
  /** This process in `mcp_connections`. */
  private readonly processId = randomUUID();
  /** Presence writes of one server run in the order their connection changed state. */
  private readonly presenceQueues = new Map<string, Promise<void>>();
  private renewTimer: NodeJS.Timeout | null = null;
  /** Who hears each server's resources and prompts list_changed on this process (the gateway's host streams). */
  private readonly listListeners = new Map<string, Set<(method: string) => void>>();

  private readonly db: Db;
  private readonly bus: JournalBus;
  private readonly logger: Logger;
  /** What each of this process's connections is made with. */
  private readonly connectionDeps: ConnectionDeps;

  constructor(
    { db, changes, bus, logger }: McpManagerDeps,
    options: ConnectionOptions = defaultConnectionOptions,
    private readonly presenceOptions: PresenceOptions = defaultPresenceOptions,
  ) {
    this.db = db;
    this.bus = bus;
    this.logger = logger;
    this.connectionDeps = {
      changes,
      logger,
      options,
      listChanged: (server, method) => {
        for (const listener of this.listListeners.get(server) ?? []) listener(method);
      },
    };
  }

  async start(): Promise<void> {
    this.started = true;
    this.renewTimer = setInterval(() => {
      for (const [name, connection] of this.connections)
        if (connection.connected) void this.setPresence(name, true).catch(() => {});
    }, this.presenceOptions.presenceRenewMs);
    this.renewTimer.unref();
    this.unsubscribe = this.bus.subscribe((events) => {
      for (const event of events) {
        if (event.type === 'mcp_server_changed' && typeof event.payload.name === 'string')
          void this.reconcile(event.payload.name);
      }
    });
    const rows = await this.db
      .select({ name: mcpServers.name })
      .from(mcpServers)
      .orderBy(asc(mcpServers.name));
    await Promise.all(rows.map((r) => this.reconcile(r.name)));
  }

  async stop(): Promise<void> {
    this.started = false;
    this.unsubscribe?.();
    await Promise.allSettled([...this.queues.values()]);
    await Promise.allSettled([...this.connections.values()].map((c) => c.close()));
    this.connections.clear();
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = null;
    await Promise.allSettled([...this.presenceQueues.values()]);
    await this.db
      .delete(mcpConnections)
      .where(eq(mcpConnections.processId, this.processId))
      .catch((error: unknown) => this.logger.warn({ err: error }, 'MCP presence cleanup failed'));
  }

  /**
   * For each server name: connected to some process (a presence row that has not expired),
   * configured but not connected, disabled, or not configured at all.
   *
   * A server this process is connected to right now is CONNECTED without a read: this process
   * holds a connection only to an enabled server, drops it when the change that disables or
   * removes the server reaches it through the journal, and a call requested here that runs at once
   * runs on that very connection (every relayed gateway call: one statement fewer each).
   */
  async presence(names: readonly string[]): Promise<Map<string, ServerPresence>> {
    const result = new Map<string, ServerPresence>();
    const unique: string[] = [];
    for (const name of new Set(names)) {
      const live = this.connections.get(name)?.connected === true;
      result.set(name, live ? 'CONNECTED' : 'UNKNOWN');
      if (!live) unique.push(name);
    }
    if (unique.length === 0) return result;
    // One statement: the configured rows, each with whether a live presence row names it. Drizzle
    // leaves the columns of a one-table select unqualified, so the outer name is spelt out.
    const configured = await this.db
      .select({
        name: mcpServers.name,
        enabled: mcpServers.enabled,
        connected: sql<boolean>`exists (select 1 from ${mcpConnections} where ${mcpConnections.serverName} = ${mcpServers}.${sql.identifier(mcpServers.name.name)} and ${mcpConnections.expiresAt} > now())`,
      })
      .from(mcpServers)
      .where(inArray(mcpServers.name, unique));
    for (const server of configured) {
      result.set(server.name, !server.enabled ? 'DISABLED' : server.connected ? 'CONNECTED' : 'DISCONNECTED');
    }
    return result;
  }

  /** Writes (or renews) this process's row for a server while connected, deletes it when not. */
  private setPresence(server: string, connected: boolean): Promise<void> {
    const previous = this.presenceQueues.get(server) ?? Promise.resolve();
    const next = previous.then(async () => {
      const where = and(eq(mcpConnections.serverName, server), eq(mcpConnections.processId, this.processId));
      if (!connected) {
        await this.db.delete(mcpConnections).where(where);
        return;
      }
      const expiresAt = new Date(Date.now() + this.presenceOptions.presenceTtlMs);
      await this.db
        .insert(mcpConnections)
        .values({ serverName: server, processId: this.processId, expiresAt })
        .onConflictDoUpdate({
          target: [mcpConnections.serverName, mcpConnections.processId],
          set: { expiresAt },
        });
    });
    const settled = next.catch((error: unknown) =>
      this.logger.warn({ err: error, server }, 'MCP presence update failed'),
    );
    this.presenceQueues.set(server, settled);
    void settled.finally(() => {
      if (this.presenceQueues.get(server) === settled) this.presenceQueues.delete(server);
    });
    // A connection waits for its row to be written before it says CONNECTED; a failure to write stops it.
    return connected ? next : settled;
  }

  /** The state of each of this process's connections, by server name (for metrics). */
  states(): Map<string, string> {
    return new Map([...this.connections].map(([name, connection]) => [name, connection.status.state]));
  }

  /** The live connection to a server in this process, if there is one. */
  connection(name: string): McpConnection | undefined {
    return this.connections.get(name);
  }

  status(config: McpServerConfig): McpServerStatus {
    const live = this.connections.get(config.name);
    if (live && config.enabled && connectionKey(live.config) === connectionKey(config))
      return { ...live.status };
    return idleStatus(config.enabled ? 'DISCONNECTED' : 'DISABLED');
  }

  /** Brings this process's connection in line with the stored config (no-op when it already is). */
  reconcile(name: string): Promise<void> {
    if (!this.started) return Promise.resolve();
    const previous = this.queues.get(name) ?? Promise.resolve();
    const next = previous
      .then(() => this.reconcileNow(name))
      .catch((error: unknown) => this.logger.error({ err: error, server: name }, 'MCP reconcile failed'));
    this.queues.set(name, next);
    void next.finally(() => {
      if (this.queues.get(name) === next) this.queues.delete(name);
    });
    return next;
  }

  private async reconcileNow(name: string): Promise<void> {
    if (!this.started) return;
    const config = await this.load(name);
    const current = this.connections.get(name);
    if (current && config?.enabled && connectionKey(current.config) === connectionKey(config)) return;
    if (current) {
      this.connections.delete(name);
      await current.close();
    }
    if (!config?.enabled || !this.started) return;
    const connection = new McpConnection(config, this.connectionDeps, {
      presence: (connected) => this.setPresence(name, connected),
    });
    this.connections.set(name, connection);
    void connection.connect();
  }

  /** Runs `listener` with the method of each resources or prompts list_changed `server` sends this process; returns the stop. */
  onListChanged(server: string, listener: (method: string) => void): () => void {
    const listeners = this.listListeners.get(server) ?? new Set();
    this.listListeners.set(server, listeners);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.listListeners.get(server) === listeners)
        this.listListeners.delete(server);
    };
  }

  /**
   * Lists the server's tools again now. In the server process this uses (or re-establishes, without
   * waiting for the back-off) its live connection; elsewhere (the CLI) it connects once and closes.
   */
  async refresh(name: string): Promise<{ status: McpServerStatus; changes: SyncChanges | null }> {
    const config = await this.load(name);
    if (!config) throw notFound(`no MCP server named ${name}`);
    if (!this.started) {
      const once = new McpConnection(config, this.connectionDeps, { retry: false });
      try {
        await once.connect();
        return { status: { ...once.status }, changes: once.lastChanges };
      } finally {
        await once.close(once.status.state);
      }
    }
    await this.reconcile(name);
    const connection = this.connections.get(name);
    if (!connection) return { status: this.status(config), changes: null };
    if (connection.connected)
      return { status: { ...connection.status }, changes: await connection.refresh() };
    await connection.connect();
    return { status: { ...connection.status }, changes: connection.lastChanges };
  }

  private async load(name: string): Promise<McpServerConfig | null> {
    const [row] = await this.db.select().from(mcpServers).where(eq(mcpServers.name, name));
    return row ?? null;
  }
}
