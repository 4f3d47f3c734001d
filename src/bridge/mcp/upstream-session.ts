import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Notification, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../core/logger.js';
import { answerWithoutHost, type RelayedMessage } from './relay.js';
import type { McpServerConfig } from './rules/mcp-server.js';

/** An upstream MCP session as it is stored, so that any process can send on it or hold its stream. */
export interface StoredUpstreamSession {
  upstreamSessionId: string;
  protocolVersion: string;
}

const CLIENT_INFO = { name: 'agent-tool-system', version: '0.1.0' };

function transportOf(config: McpServerConfig, sessionId?: string, fetchFn?: typeof fetch) {
  return new StreamableHTTPClientTransport(new URL(config.url!), {
    requestInit: { headers: config.headers },
    ...(sessionId ? { sessionId } : {}),
    ...(fetchFn ? { fetch: fetchFn } : {}),
    // A lost stream is re-established by its holder, which first checks that it is still wanted.
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1_000,
      maxReconnectionDelay: 1_000,
      reconnectionDelayGrowFactor: 1,
    },
  });
}

/** Whether the upstream answered that the session is unknown (expired, ended, or the server restarted). */
export function sessionGone(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}

/**
 * The SDK client opens the session's GET stream by itself after initialize; a session made here is
 * only stored, and its stream is held by whichever process holds the host's, so the GET is
 * answered here with the 405 a server without streams gives (which the SDK takes quietly).
 */
const withoutStream: typeof fetch = (input, init) =>
  init?.method === 'GET' ? Promise.resolve(new Response(null, { status: 405 })) : fetch(input, init);

/**
 * Initializes a new session of a Streamable HTTP server, declaring no client capabilities (it
 * carries resource subscriptions, nothing the server asks the client), and leaves it open. Null
 * when the server issues no session id (a stateless server keeps no subscriptions).
 */
export async function openUpstreamSession(
  config: McpServerConfig,
  timeoutMs: number,
): Promise<StoredUpstreamSession | null> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const transport = transportOf(config, undefined, withoutStream);
  await client.connect(transport, { timeout: timeoutMs });
  const stored = transport.sessionId
    ? { upstreamSessionId: transport.sessionId, protocolVersion: transport.protocolVersion ?? '' }
    : null;
  await client.close();
  return stored;
}

/** A client on a stored session: no initialize (the session exists), its negotiated protocol version sent. */
async function clientOn(
  config: McpServerConfig,
  stored: StoredUpstreamSession,
  fetchFn?: typeof fetch,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const transport = transportOf(config, stored.upstreamSessionId, fetchFn);
  await client.connect(transport);
  if (stored.protocolVersion) transport.setProtocolVersion(stored.protocolVersion);
  return { client, transport };
}

/** Sends one request on a stored session and gives back the server's answer (its errors as McpError, a lost session as `sessionGone`). */
export async function requestOn(
  config: McpServerConfig,
  stored: StoredUpstreamSession,
  request: RelayedMessage,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const { client } = await clientOn(config, stored);
  try {
    return await client.request(request as never, ResultSchema, { signal });
  } finally {
    await client.close().catch(() => {});
  }
}

/** Ends a stored session (DELETE); a session the server no longer knows is ended already. */
export async function endUpstreamSession(config: McpServerConfig, stored: StoredUpstreamSession) {
  const transport = transportOf(config, stored.upstreamSessionId);
  if (stored.protocolVersion) transport.setProtocolVersion(stored.protocolVersion);
  await transport.terminateSession().catch((error: unknown) => {
    if (!sessionGone(error)) throw error;
  });
}

/**
 * The GET stream of a stored session, held by this process: the server's notifications on it go
 * to `notification`, its requests get the no-host error (ping is answered), and `ended` is told
 * once when the stream ends for any reason but `close`.
 */
export class UpstreamStream {
  private closed = false;

  private constructor(private readonly client: Client) {}

  /** Opens the stream; resolves once the server has accepted it (a lost session rejects with `sessionGone`). */
  static async open(
    config: McpServerConfig,
    stored: StoredUpstreamSession,
    handlers: { notification: (notification: Notification) => void; ended: () => void },
    logger: Logger,
  ): Promise<UpstreamStream> {
    let stream: UpstreamStream | null = null;
    let endedOnce = false;
    const ended = () => {
      if (endedOnce || stream?.closed) return;
      endedOnce = true;
      handlers.ended();
    };
    // The SDK reads the stream's body and says nothing when it ends: the body is passed through
    // a stream of ours whose end is seen.
    const watched: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (init?.method !== 'GET' || !response.ok || !response.body) return response;
      const pass = new TransformStream<Uint8Array, Uint8Array>();
      void response.body.pipeTo(pass.writable).then(ended, ended);
      return new Response(pass.readable, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
    const { client, transport } = await clientOn(config, stored, watched);
    answerWithoutHost(client, config.name, logger);
    client.fallbackNotificationHandler = async (notification) => handlers.notification(notification);
    stream = new UpstreamStream(client);
    try {
      // resumeStream with no event id opens a fresh GET stream (the SDK sends Last-Event-ID only when given one).
      await transport.resumeStream('');
    } catch (error) {
      stream.closed = true;
      await client.close().catch(() => {});
      throw error;
    }
    return stream;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client.close().catch(() => {});
  }
}
