import { AsyncLocalStorage } from 'node:async_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../core/logger.js';

/** A request or notification as it travels between the upstream server and the host. */
export interface RelayedMessage {
  method: string;
  params?: Record<string, unknown>;
}

/** One `notifications/progress` of the upstream, without its token (the host's token replaces it). */
export interface RelayedProgress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * The host request that caused an upstream tool call, while it is open on this process: where the
 * upstream's requests to the client (sampling, elicitation, roots) and its notifications go.
 */
export interface HostRelay {
  /** What the host declared at initialize: the upstream session declares the same, so the server offers what the host can answer. */
  capabilities: Record<string, unknown>;
  /**
   * The host's MCP session, when it has one: an upstream session is reused only by later calls of
   * the same host session (what the upstream learned, such as the host's roots, stays with that host).
   */
  hostSession: string | null;
  /** Sends one upstream request to the host and gives back the host's answer, or throws its JSON-RPC error. */
  request(request: RelayedMessage, signal: AbortSignal): Promise<Record<string, unknown>>;
  /** Sends one upstream notification (a log message) to the host. */
  notify(notification: RelayedMessage): Promise<void>;
  /** Reports one upstream progress notification under the host's progressToken (none without one). */
  progress(progress: RelayedProgress): void;
  /**
   * Aborts when the host cancels its request (`notifications/cancelled`, on any process): the
   * upstream request of the call is cancelled too, so the server is told to stop.
   */
  cancelled?: AbortSignal;
}

/**
 * Which host request each upstream call of this process relays to. Nothing here outlives the host's
 * request, and nothing a later request needs is kept: a call that runs with no host request open on
 * this process (another process's dispatcher after an approval, the sweep, the GraphQL API) simply
 * finds no relay.
 */
export class McpRelays {
  /** The host request whose tools/call is being requested right now (it may run at once, in the same async flow). */
  private readonly requesting = new AsyncLocalStorage<{ relay: HostRelay; tool: string }>();
  /** Held calls (waiting for a person) and the host request that waits for them. */
  private readonly held = new Map<string, HostRelay>();

  /**
   * Runs `work` (the request of a call of `tool`, which the lifecycle may execute before it returns)
   * with `relay` attached to that call.
   */
  during<T>(relay: HostRelay, tool: string, work: () => Promise<T>): Promise<T> {
    return this.requesting.run({ relay, tool }, work);
  }

  /** Attaches `relay` to a call while a host request holds it; returns the detach. */
  attach(callId: string, relay: HostRelay): () => void {
    this.held.set(callId, relay);
    return () => {
      if (this.held.get(callId) === relay) this.held.delete(callId);
    };
  }

  /** The host request a call relays to, if one is open here. */
  of(callId: string, tool: string): HostRelay | null {
    const held = this.held.get(callId);
    if (held) return held;
    const requesting = this.requesting.getStore();
    return requesting?.tool === tool ? requesting.relay : null;
  }
}

/**
 * The JSON-RPC error an upstream request gets when no host request is there to answer it: the
 * standard "method not found" code, which MCP clients give for a capability they lack, so servers
 * that fall back without it keep working, with a message that says why.
 */
export function noHostError(method: string): Error {
  return jsonRpcError(
    ErrorCode.MethodNotFound,
    `No MCP host is attached to this call, so ${method} cannot reach one: the agent-tool-system gateway relays the server's requests only while the host's tools/call request is open on the process that runs the call (not after an approval decided on another process, nor for calls made through the GraphQL API)`,
  );
}

/**
 * An error a request handler throws to answer with exactly this code and message (the SDK's
 * McpError would put "MCP error <code>:" in front, and the receiving SDK adds it again).
 */
export function jsonRpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data !== undefined ? { data } : {}) });
}

/**
 * A client whose messages belong to no host request (the process's shared connection, an idle relay
 * session): requests to the client get `noHostError`, notifications other than progress are dropped
 * (logged at debug).
 */
export function answerWithoutHost(client: Client, server: string, logger: Logger): void {
  client.fallbackRequestHandler = async (request) => {
    throw noHostError(request.method);
  };
  client.fallbackNotificationHandler = async (notification) => {
    logger.debug(
      { server, method: notification.method },
      'MCP server notification with no host attached: dropped',
    );
  };
}

/**
 * The SDK handles a notification a microtask after it arrives but a response at once, so a
 * progress notification that arrives in one chunk with its request's response (a stdio server that
 * reports and answers at once) would find its request already gone and be lost. Responses are
 * handed on one microtask later, after the notifications that came before them.
 */
export function responsesAfterNotifications(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    if ('method' in message) deliver(message, extra);
    else queueMicrotask(() => deliver(message, extra));
  };
}
