import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResultSchema,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../core/logger.js';
import { cutAt } from '../../core/unicode.js';
import type { Invalidations } from '../../journal/invalidations.js';
import { type ConnectionOptions, idleStatus, type McpServerStatus } from './connection-status.js';
import { type SyncChanges, syncServerTools } from './registry-sync.js';
import {
  answerWithoutHost,
  type HostRelay,
  type RelayedMessage,
  responsesAfterNotifications,
} from './relay.js';
import { RelaySession, RelaySessions } from './relay-sessions.js';
import type { ConnectionState, McpServerConfig } from './rules/mcp-server.js';
import { mapRemoteTool } from './tool-mapping.js';

/** What a connection needs from its process. */
export interface ConnectionDeps {
  /** Registry writes notify every process's registry cache through it. */
  changes: Invalidations;
  logger: Logger;
  options: ConnectionOptions;
  /**
   * Told of the server's `notifications/resources/list_changed` and `prompts/list_changed` (the
   * MCP gateway sends them on to the hosts' streams of `/mcp/<server>` on this process).
   */
  listChanged?: (server: string, method: string) => void;
}

/** How a connection is used: kept up by the server process, or made once (the CLI). */
export interface ConnectionUse {
  /** False for a one-shot connection (the CLI): a failed attempt is reported, not retried. */
  retry?: boolean;
  /**
   * Told when this connection becomes usable and when it stops being so, so that other processes
   * can tell whether the server is connected anywhere. Awaited before the state turns CONNECTED.
   */
  presence?: ((connected: boolean) => Promise<void>) | null;
}

/** A server that keeps handing out cursors is cut off rather than listed forever. */
const MAX_LIST_PAGES = 100;
const STDERR_TAIL_CHARS = 4_000;

const CLIENT_INFO = { name: 'agent-tool-system', version: '0.1.0' };

export class NotConnectedError extends Error {
  override name = 'NotConnectedError';
}

/**
 * One server, one SDK client, for the life of this process: connects, lists tools (every page)
 * into the registry, listens for `notifications/tools/list_changed`, and when the connection
 * drops or cannot be made, tries again with exponential back-off until it is closed.
 */
export class McpConnection {
  private client: Client | null = null;
  /** Bumped on every attempt: events from an older client are ignored. */
  private generation = 0;
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private stderrTail = '';
  private remoteNames = new Map<string, string>();
  private refreshing: Promise<SyncChanges | null> | null = null;
  private refreshAgain = false;
  /** What the latest listing changed in the registry (null before the first). */
  lastChanges: SyncChanges | null = null;
  readonly status: McpServerStatus = idleStatus('CONNECTING');
  /** Upstream sessions of their own for calls relayed to a host (Streamable HTTP servers only). */
  private readonly relaySessions: RelaySessions | null;

  private readonly changes: Invalidations;
  private readonly logger: Logger;
  private readonly options: ConnectionOptions;
  private readonly retry: boolean;
  private readonly presence: ((connected: boolean) => Promise<void>) | null;
  private readonly listChanged: ConnectionDeps['listChanged'];

  constructor(
    readonly config: McpServerConfig,
    { changes, logger, options, listChanged }: ConnectionDeps,
    { retry = true, presence = null }: ConnectionUse = {},
  ) {
    this.changes = changes;
    this.logger = logger;
    this.options = options;
    this.retry = retry;
    this.presence = presence;
    this.listChanged = listChanged;
    this.relaySessions =
      config.transport === 'STREAMABLE_HTTP'
        ? new RelaySessions((relay) =>
            RelaySession.open(new URL(config.url!), config.headers, relay, {
              server: config.name,
              logger,
              timeoutMs: options.connectTimeoutMs,
            }),
          )
        : null;
  }

  get connected(): boolean {
    return this.status.state === 'CONNECTED' && this.client !== null;
  }

  /** One connection attempt; on failure the state says why and a retry is scheduled. */
  async connect(): Promise<void> {
    if (this.closed) return;
    this.clearRetry();
    const generation = ++this.generation;
    const previous = this.client;
    this.client = null;
    await previous?.close().catch(() => {});
    this.status.state = 'CONNECTING';
    this.stderrTail = '';
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    client.onclose = () => this.lost(generation);
    client.onerror = (error) =>
      this.logger.debug({ err: error, server: this.config.name }, 'MCP transport error');
    // The shared connection's messages belong to no host request (the relay uses sessions of its own).
    answerWithoutHost(client, this.config.name, this.logger);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (generation === this.generation) void this.refresh();
    });
    for (const schema of [ResourceListChangedNotificationSchema, PromptListChangedNotificationSchema])
      client.setNotificationHandler(schema, (notification) => {
        if (generation === this.generation) this.listChanged?.(this.config.name, notification.method);
      });
    try {
      const transport = this.transport();
      await client.connect(transport, { timeout: this.options.connectTimeoutMs });
      responsesAfterNotifications(transport);
      if (this.closed || generation !== this.generation) {
        await client.close().catch(() => {});
        return;
      }
      this.client = client;
      this.status.serverVersion = client.getServerVersion()?.version ?? null;
      await this.listInto(client);
      if (generation !== this.generation || this.client !== client) return;
      await this.presence?.(true);
      if (generation !== this.generation || this.client !== client) return;
      this.status.state = 'CONNECTED';
      this.status.connectedAt = new Date();
      this.status.failures = 0;
    } catch (error) {
      // Stale, or the connection already dropped during listing and a retry is scheduled.
      if (generation !== this.generation || this.retryTimer) return;
      this.client = null;
      await client.close().catch(() => {});
      this.fail('FAILED', `could not connect: ${this.describe(error)}`);
    }
  }

  /** Lists the tools again now (also what `notifications/tools/list_changed` triggers); concurrent requests coalesce. */
  refresh(): Promise<SyncChanges | null> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      let changes: SyncChanges | null = null;
      try {
        do {
          this.refreshAgain = false;
          const client = this.client;
          if (!client) return changes;
          changes = await this.listInto(client);
        } while (this.refreshAgain);
      } catch (error) {
        this.noteError(`refreshing the tool list failed: ${this.describe(error)}`);
      } finally {
        this.refreshing = null;
      }
      return changes;
    })();
    return this.refreshing;
  }

  /** The server's own name for a registry tool, if its latest listing offered it. */
  remoteName(toolName: string): string | undefined {
    return this.remoteNames.get(toolName);
  }

  callTool(
    remoteName: string,
    args: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<CallToolResult> {
    const client = this.client;
    if (!client || !this.connected) throw new NotConnectedError(this.describeState());
    // `request`, not `callTool`: the SDK's own output check caches validators per listed page and
    // throws protocol errors; the runtime checks structured output against the registered spec.
    return client.request(
      { method: 'tools/call', params: { name: remoteName, arguments: args } },
      CallToolResultSchema,
      options,
    ) as Promise<CallToolResult>;
  }

  /**
   * An upstream session of its own for one call relayed to `relay`'s host, so that the server's
   * requests and log messages during the call are told apart from other calls'. Null for a stdio
   * server: it is one process whose state its tools may share, and a second child per host would
   * split that state; its calls run on the shared connection (progress is still relayed, by token).
   */
  relaySession(relay: HostRelay) {
    if (!this.relaySessions || !this.connected) return null;
    return this.relaySessions.take(relay);
  }

  /** Sends a host's notification (roots/list_changed) to every relay session of that host session on this process. */
  notifyRelaySessions(hostSession: string, notification: RelayedMessage): Promise<void> {
    return this.relaySessions?.notify(hostSession, notification) ?? Promise.resolve();
  }

  /**
   * What the server declared at initialize (null while not connected): the MCP gateway's
   * `/mcp/<server>` offers the same.
   */
  serverCapabilities(): Record<string, unknown> | null {
    return this.connected ? ((this.client?.getServerCapabilities() as Record<string, unknown>) ?? {}) : null;
  }

  /**
   * Sends one request of the host of the MCP gateway's `/mcp/<server>` (resources, prompts,
   * completion, logging) to the server and gives back its answer unchanged; the server's errors
   * come back as the SDK's McpError with their code.
   */
  forward(request: { method: string; params?: Record<string, unknown> }, options: RequestOptions) {
    const client = this.client;
    if (!client || !this.connected) throw new NotConnectedError(this.describeState());
    return client.request(request as never, ResultSchema, options);
  }

  /** A call found the transport broken (an HTTP server that went away says so only then). */
  reportBroken(error: unknown): void {
    const client = this.client;
    if (client === null || this.closed) return;
    this.client = null;
    this.generation += 1;
    void client.close().catch(() => {});
    this.fail('DISCONNECTED', `the connection broke: ${this.describe(error)}`);
  }

  describeState(): string {
    const why = this.status.lastError ? `: ${this.status.lastError}` : '';
    return `${this.status.state.toLowerCase()}${why}`;
  }

  async close(finalState: ConnectionState = 'DISCONNECTED'): Promise<void> {
    this.closed = true;
    this.generation += 1;
    this.clearRetry();
    const client = this.client;
    this.client = null;
    this.status.state = finalState;
    const gone = this.presence?.(false);
    await this.relaySessions?.close();
    await client?.close().catch(() => {});
    await gone;
  }

  private transport(): Transport {
    const c = this.config;
    if (c.transport === 'STREAMABLE_HTTP') {
      return new StreamableHTTPClientTransport(new URL(c.url!), { requestInit: { headers: c.headers } });
    }
    // The child gets the SDK's minimal inherited environment (PATH, HOME, …) plus what the admin
    // configured, never this server's own secrets (DATABASE_URL, ADMIN_TOKEN).
    const transport = new StdioClientTransport({
      command: c.command!,
      args: c.args,
      env: c.env,
      ...(c.cwd ? { cwd: c.cwd } : {}),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    return transport;
  }

  private async listInto(client: Client): Promise<SyncChanges> {
    const listed: Tool[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 1; ; page += 1) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: this.options.listTimeoutMs,
      });
      listed.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
      if (cursors.has(cursor) || page >= MAX_LIST_PAGES)
        throw new Error(`tools/list kept paginating (page ${page}, cursor ${JSON.stringify(cursor)})`);
      cursors.add(cursor);
    }
    const mapped = listed.map((tool) => mapRemoteTool(this.config.name, tool));
    const { changes, registered } = await syncServerTools(this.changes, this.config.name, mapped);
    this.lastChanges = changes;
    if (this.client !== client) return changes;
    this.remoteNames = new Map(
      mapped.flatMap((m) =>
        m.ok && registered.has(m.spec.name) ? [[m.spec.name, m.remoteName] as const] : [],
      ),
    );
    this.status.toolCount = this.remoteNames.size;
    return changes;
  }

  private lost(generation: number): void {
    if (generation !== this.generation || this.closed || this.client === null) return;
    this.client = null;
    const what = this.config.transport === 'STDIO' ? 'the server process exited' : 'the connection closed';
    this.fail('DISCONNECTED', `${what}${this.stderrNote()}`);
  }

  private fail(state: ConnectionState, message: string): void {
    this.status.state = state;
    void this.presence?.(false);
    this.noteError(message);
    this.status.failures += 1;
    this.logger.warn({ server: this.config.name, error: message }, 'MCP server connection failed');
    if (this.retry && !this.closed) this.scheduleRetry();
  }

  private noteError(message: string): void {
    this.status.lastError = message;
    this.status.lastErrorAt = new Date();
  }

  private scheduleRetry(): void {
    if (this.retryTimer) return;
    const exponent = Math.min(this.status.failures - 1, 16);
    const base = Math.min(this.options.backoffMaxMs, this.options.backoffBaseMs * 2 ** exponent);
    // Jitter spreads the reconnects of several processes that lost the same server at once.
    const delay = Math.round(base * (1 + Math.random() * 0.2));
    this.status.nextRetryAt = new Date(Date.now() + delay);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, delay);
    this.retryTimer.unref();
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.status.nextRetryAt = null;
  }

  /** The line of the server's stderr most likely to say what went wrong: the last error, else the last line. */
  private stderrNote(): string {
    const lines = this.stderrTail
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('at '));
    const line = lines.findLast((l) => /error/i.test(l)) ?? lines.at(-1);
    return line ? ` (stderr: ${cutAt(line, 300)})` : '';
  }

  private describe(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    return `${message}${this.stderrNote()}`;
  }
}
