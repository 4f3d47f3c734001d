import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  RootsListChangedNotificationSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type BearerMcpHttpServer, serveBearerMcp } from './mcp-http-server.js';

/** What the notify server saw and what it can be made to send, for the tests' assertions. */
export interface NotifyMcpServer extends BearerMcpHttpServer {
  /** `[session, uri]` of every subscription the server holds now. */
  subscriptions(): [string, string][];
  /** The sessions open now. */
  sessions(): string[];
  /** Sends `notifications/resources/updated` for `uri` to every session subscribed to it. */
  touch(uri: string): Promise<void>;
  /** Forgets a session, as a restarted server would: its streams end, and it is unknown from then on. */
  endSession(session: string): Promise<void>;
  /** Sends `notifications/resources/list_changed` and `prompts/list_changed` to every session. */
  changeLists(): Promise<void>;
  /** The sessions of the `slow` calls running or run, one entry a call. */
  running: string[];
  /** The sessions of the `slow` calls the client cancelled, one entry a call. */
  cancelled: string[];
  /** The sessions that said their roots changed, one entry a notification. */
  rootsChanged: string[];
}

/**
 * A real SDK MCP server over Streamable HTTP for the gateway's notifications: two subscribable
 * resources (`watch://a`, `watch://b`) whose updates the test sends with `touch`, a prompt, list
 * changes on demand, a `quick` tool, a `slow` one that runs until the client cancels it (and records that), and a
 * record of the roots changes the client announced.
 */
export async function startNotifyMcpHttp(token: string): Promise<NotifyMcpServer> {
  const servers = new Map<string, McpServer>();
  const subscribed = new Map<string, Set<string>>();
  const running: string[] = [];
  const cancelled: string[] = [];
  const rootsChanged: string[] = [];

  const create = () => {
    const server = new McpServer(
      { name: 'ats-notify-server', version: '1.0.0' },
      {
        capabilities: {
          tools: {},
          resources: { subscribe: true, listChanged: true },
          prompts: { listChanged: true },
        },
      },
    );
    for (const name of ['a', 'b'])
      server.registerResource(name, `watch://${name}`, { mimeType: 'text/plain' }, async (uri) => ({
        contents: [{ uri: uri.href, text: `resource ${name}` }],
      }));
    server.registerPrompt('hello', { description: 'Says hello.' }, async () => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }],
    }));
    server.registerTool('quick', { description: 'Answers at once.' }, async () => ({
      content: [{ type: 'text', text: 'quick' }],
    }));
    server.registerTool('slow', { description: 'Runs until the client cancels it.' }, async (extra) => {
      running.push(extra.sessionId ?? '');
      await new Promise<void>((resolve) => {
        if (extra.signal.aborted) return resolve();
        extra.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      cancelled.push(extra.sessionId ?? '');
      return { content: [{ type: 'text', text: 'cancelled' }] };
    });
    const sessionOf = (extra: { sessionId?: string }) => extra.sessionId ?? '';
    server.server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
      const set = subscribed.get(sessionOf(extra)) ?? new Set();
      set.add(request.params.uri);
      subscribed.set(sessionOf(extra), set);
      return {};
    });
    server.server.setRequestHandler(UnsubscribeRequestSchema, async (request, extra) => {
      subscribed.get(sessionOf(extra))?.delete(request.params.uri);
      return {};
    });
    return server;
  };

  const http = await serveBearerMcp(token, async (transport) => {
    const server = create();
    server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
      rootsChanged.push(transport.sessionId ?? '');
    });
    server.server.onclose = () => {
      if (transport.sessionId) {
        servers.delete(transport.sessionId);
        subscribed.delete(transport.sessionId);
      }
    };
    server.server.oninitialized = () => {
      if (transport.sessionId) servers.set(transport.sessionId, server);
    };
    await server.connect(transport);
    return () => void server.close();
  });

  return {
    ...http,
    running,
    cancelled,
    rootsChanged,
    subscriptions: () =>
      [...subscribed].flatMap(([session, uris]) =>
        [...uris].map((uri) => [session, uri] as [string, string]),
      ),
    sessions: () => [...servers.keys()],
    async touch(uri) {
      for (const [session, server] of servers)
        if (subscribed.get(session)?.has(uri)) await server.server.sendResourceUpdated({ uri });
    },
    async endSession(session) {
      await servers.get(session)?.close();
    },
    async changeLists() {
      for (const server of servers.values()) {
        server.sendResourceListChanged();
        server.sendPromptListChanged();
      }
    },
  };
}
