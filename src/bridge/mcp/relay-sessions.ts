import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { canonicalJson } from '../../core/canonical-json.js';
import type { Logger } from '../../core/logger.js';
import {
  answerWithoutHost,
  type HostRelay,
  type RelayedMessage,
  responsesAfterNotifications,
} from './relay.js';

/** How long an idle upstream session waits for its host session's next call before it is ended. */
const IDLE_MS = 60_000;
/** Idle sessions kept per host session (one per call it makes at once). */
const MAX_IDLE = 4;

const CLIENT_INFO = { name: 'agent-tool-system', version: '0.1.0' };

/**
 * An upstream session of its own for one call at a time, so that every message the server sends
 * on it belongs to that call: requests to the client and log messages go to the host request it
 * is bound to, and get `noHostError` (or are dropped) while it is idle.
 */
export class RelaySession {
  private bound: HostRelay | null;

  private constructor(
    private readonly client: Client,
    private readonly transport: StreamableHTTPClientTransport,
    relay: HostRelay,
  ) {
    this.bound = relay;
    this.hostSession = relay.hostSession;
  }

  /** The host session it was opened for: it serves only that host session's calls. */
  readonly hostSession: string | null;

  /**
   * Opens a session bound to `relay` from its start: a server that asks for the host's roots right
   * after initialize asks this host.
   */
  static async open(
    url: URL,
    headers: Record<string, string> | undefined,
    relay: HostRelay,
    options: { server: string; logger: Logger; timeoutMs: number },
  ): Promise<RelaySession> {
    const client = new Client(CLIENT_INFO, { capabilities: relay.capabilities });
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
    const session = new RelaySession(client, transport, relay);
    answerWithoutHost(client, options.server, options.logger);
    const noHost = client.fallbackRequestHandler!;
    client.fallbackRequestHandler = (request, extra) => {
      const host = session.bound;
      if (!host) return noHost(request, extra);
      return host.request(request as RelayedMessage, extra.signal) as never;
    };
    const dropped = client.fallbackNotificationHandler!;
    client.fallbackNotificationHandler = async (notification) => {
      const host = session.bound;
      if (host && notification.method === 'notifications/message')
        await host.notify(notification as RelayedMessage).catch(() => {});
      else await dropped(notification);
    };
    await client.connect(transport, { timeout: options.timeoutMs });
    responsesAfterNotifications(transport);
    return session;
  }

  bind(relay: HostRelay | null): void {
    this.bound = relay;
  }

  callTool(name: string, args: Record<string, unknown>, options: RequestOptions): Promise<CallToolResult> {
    return this.client.request(
      { method: 'tools/call', params: { name, arguments: args } },
      CallToolResultSchema,
      options,
    ) as Promise<CallToolResult>;
  }

  /** Sends a host's notification to the server; one the session did not declare the capability for is not sent. */
  async notify(notification: RelayedMessage): Promise<void> {
    await this.client.notification(notification as never).catch(() => {});
  }

  /** Ends the upstream session (DELETE) and the client. */
  async close(): Promise<void> {
    this.bound = null;
    await this.transport.terminateSession().catch(() => {});
    await this.client.close().catch(() => {});
  }
}

/**
 * The relay sessions of one Streamable HTTP server on this process. A call of a host session takes
 * an idle session of that host session (and of the same declared capabilities) or opens one, and
 * gives it back when the call ends; a host request without a session gets a session for its one
 * call. Idle sessions end after a minute. This is a cache: another process simply opens its own.
 */
export class RelaySessions {
  private readonly idle = new Map<string, { session: RelaySession; timer: NodeJS.Timeout }[]>();
  /** Every open session, idle or carrying a call. */
  private readonly open = new Set<RelaySession>();
  private closed = false;

  constructor(private readonly opener: (relay: HostRelay) => Promise<RelaySession>) {}

  /**
   * A session bound to `relay` for one call; `release` gives it back when the call is over, or
   * ends it when the call failed (a session that broke, or a cancelled call the server may still run).
   */
  async take(relay: HostRelay): Promise<{ session: RelaySession; release: (reuse: boolean) => void }> {
    const key = relay.hostSession === null ? null : canonicalJson([relay.hostSession, relay.capabilities]);
    const kept = key === null ? undefined : this.idle.get(key)?.pop();
    let session: RelaySession;
    if (kept) {
      clearTimeout(kept.timer);
      session = kept.session;
      session.bind(relay);
    } else {
      session = await this.opener(relay);
      this.open.add(session);
    }
    return { session, release: (reuse) => this.giveBack(key, session, reuse) };
  }

  private giveBack(key: string | null, session: RelaySession, reuse: boolean) {
    session.bind(null);
    const list = key === null ? undefined : (this.idle.get(key) ?? []);
    if (!reuse || this.closed || key === null || !list || list.length >= MAX_IDLE) {
      this.end(session);
      return;
    }
    const entry = {
      session,
      timer: setTimeout(() => {
        const at = list.indexOf(entry);
        if (at >= 0) list.splice(at, 1);
        if (list.length === 0 && this.idle.get(key) === list) this.idle.delete(key);
        this.end(session);
      }, IDLE_MS),
    };
    entry.timer.unref();
    list.push(entry);
    this.idle.set(key, list);
  }

  private end(session: RelaySession): void {
    this.open.delete(session);
    void session.close();
  }

  /** Sends a host's notification to every session of that host session, idle or carrying a call. */
  async notify(hostSession: string, notification: RelayedMessage): Promise<void> {
    const sessions = [...this.open].filter((session) => session.hostSession === hostSession);
    await Promise.all(sessions.map((session) => session.notify(notification)));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.open.clear();
    const all = [...this.idle.values()].flat();
    this.idle.clear();
    for (const { timer } of all) clearTimeout(timer);
    await Promise.allSettled(all.map(({ session }) => session.close()));
  }
}
