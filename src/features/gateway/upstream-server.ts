import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ListToolsRequestSchema,
  RootsListChangedNotificationSchema,
  type ServerNotification,
  type ServerRequest,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { HostRelay, McpConnectionManager } from '../../bridge/mcp/index.js';
import type { PolicyService, RegistryService } from '../../calls/index.js';
import type { CallRelay, GatewayCalls } from './calls.js';
import type { HostAnswers } from './host-answers.js';
import type { HostNotices } from './host-notices.js';
import { SCHEMA_VALIDATOR, SERVER_INFO, unknownTool } from './mcp-server.js';
import { HostProgress } from './progress.js';
import type { GatewayContext } from './sessions.js';
import { type GatewaySubscriptions, subscribable } from './subscriptions.js';
import { AWAIT_TOOL, type CalledTool, mcpToolOf, visibleTool, visibleTools } from './tool-list.js';

export interface UpstreamServerDeps {
  policy: PolicyService;
  registry: RegistryService;
  calls: GatewayCalls;
  connections: McpConnectionManager;
  consoleUrl: (callId: string) => string;
  answers: HostAnswers;
  subscriptions: GatewaySubscriptions;
  notices: HostNotices;
}

/**
 * Ties one host tools/call to the upstream call it makes: the upstream's requests to the client
 * are sent to the host on this request's stream and its answers (or JSON-RPC errors) go back, its
 * log messages are sent on, and its progress goes out under the host's progressToken.
 */
function relayFor(
  { deps, ctx, server }: { deps: UpstreamServerDeps; ctx: GatewayContext; server: Server },
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  progressToken: string | number | undefined,
  cancelled: AbortSignal | undefined,
): { relay: CallRelay; progress?: (message: string) => void } {
  const connections = deps.connections;
  const progress = progressToken === undefined ? null : new HostProgress(progressToken, extra);
  const host: HostRelay = {
    capabilities: ctx.session?.clientCapabilities ?? {},
    hostSession: ctx.session?.id ?? null,
    // No timeout of ours: the answer may wait for a person (an elicitation form); the call's own
    // deadline ends the upstream's tools/call, and the upstream then cancels what it asked.
    request: (request, signal) =>
      deps.answers.ask(
        server.transport!,
        extra.requestId,
        request,
        ctx.session?.id ?? '',
        AbortSignal.any([signal, extra.signal]),
      ),
    notify: (notification) => extra.sendNotification(notification as ServerNotification),
    progress: (reported) => progress?.relay(reported),
    ...(cancelled ? { cancelled } : {}),
  };
  return {
    relay: {
      during: (tool, work) => connections.relays.during(host, tool, work),
      attach: (callId) => connections.relays.attach(callId, host),
    },
    ...(progress ? { progress: (message: string) => progress.waiting(message) } : {}),
  };
}

/** The registry names of one upstream's tools: `mcp.<server>.<its own name>` (see bridge/mcp/tool-mapping.ts). */
const registryName = (server: string, remote: string) => `mcp.${server}.${remote}`;

/**
 * The SDK server of one HTTP request to `/mcp/<server>`: the upstream's tools under its own names,
 * those the policy lets this token's user and profile see, each call through the lifecycle with the
 * upstream's messages during it relayed to this request (see relayFor); every
 * other request (resources, prompts, completion, logging) is sent to the upstream over this
 * process's connection to it and its answer returned unchanged. Null when this process has no live
 * connection to that server.
 */
export function upstreamServer(
  deps: UpstreamServerDeps,
  ctx: GatewayContext,
  ended: AbortSignal,
): Server | null {
  const connection = deps.connections.connection(ctx.server);
  const capabilities = connection?.serverCapabilities();
  if (!connection || !capabilities) return null;
  const server = new Server(
    { ...SERVER_INFO, name: `${SERVER_INFO.name}/${ctx.server}` },
    {
      capabilities: { ...capabilities, tools: { listChanged: true } },
      jsonSchemaValidator: SCHEMA_VALIDATOR,
    },
  );
  const context = { userId: ctx.principal.userId, profileId: ctx.profileId };
  const prefix = registryName(ctx.server, '');

  const ownTools = async () => {
    const visible = await visibleTools(deps.policy, context);
    const own = new Map<string, string>();
    for (const name of visible.specs.keys()) {
      if (!name.startsWith(prefix)) continue;
      const remote = connection.remoteName(name) ?? name.slice(prefix.length);
      own.set(remote, name);
    }
    return { visible, own };
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const { visible, own } = await ownTools();
    return { tools: [...own].map(([remote, name]) => mcpToolOf(remote, visible.specs.get(name)!)) };
  });

  // The tool of one call: its registry name is usually the upstream's name under the prefix, and
  // then that one tool is resolved; otherwise (a name the bridge had to change) the whole list.
  const calledTool = async (called: string): Promise<CalledTool | null> => {
    const direct = `${prefix}${called}`;
    if ((connection.remoteName(direct) ?? called) === called) {
      const tool = await visibleTool(deps, context, direct);
      if (tool) return tool;
    }
    const { visible, own } = await ownTools();
    const name = own.get(called);
    return name && name !== AWAIT_TOOL ? { name, mayAsk: visible.asking.has(name) } : null;
  };

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = await calledTool(request.params.name);
    if (!tool) throw unknownTool(request.params.name);
    // The host may cancel it with a notification that reaches any process (host-notices.ts).
    const cancel = ctx.session ? deps.notices.track(ctx.session.id, extra.requestId) : null;
    const signals = cancel ? [extra.signal, ended, cancel.signal] : [extra.signal, ended];
    try {
      return await deps.calls.call(
        ctx,
        tool.name,
        request.params.arguments ?? {},
        {
          signal: AbortSignal.any(signals),
          consoleUrl: deps.consoleUrl,
          advertised: request.params.name,
          awaitTool: null,
          ...relayFor({ deps, ctx, server }, extra, request.params._meta?.progressToken, cancel?.signal),
        },
        tool,
      );
    } finally {
      cancel?.done();
    }
  });

  const session = ctx.session;
  if (session) {
    server.setNotificationHandler(CancelledNotificationSchema, (notification) =>
      notification.params.requestId === undefined
        ? undefined
        : deps.notices.cancelled(session.id, ctx.server, notification.params.requestId),
    );
    server.setNotificationHandler(RootsListChangedNotificationSchema, () =>
      deps.notices.rootsChanged(session.id, ctx.server),
    );
    if (subscribable(connection)) {
      server.setRequestHandler(SubscribeRequestSchema, (request, extra) =>
        deps.subscriptions.subscribe(session.id, connection.config, request.params.uri, extra.signal),
      );
      server.setRequestHandler(UnsubscribeRequestSchema, (request, extra) =>
        deps.subscriptions.unsubscribe(session.id, connection.config, request.params.uri, extra.signal),
      );
    }
  }

  const forward = (request: { method: string; params?: Record<string, unknown> }, signal: AbortSignal) =>
    connection.forward(request, { signal });
  if (capabilities.logging)
    server.setRequestHandler(SetLevelRequestSchema, (request, extra) => forward(request, extra.signal));
  server.fallbackRequestHandler = (request, extra) => forward(request, extra.signal) as never;
  return server;
}

/**
 * A host's GET stream of `/mcp/<server>` opened on this process: until `closed` aborts, the
 * upstream's resources and prompts list_changed that this process's connection hears are sent on
 * it, and its session's resource updates (subscriptions.ts). Resolves once the upstream stream
 * carrying the updates is open, so that the host's stream is answered only then.
 */
export async function watchUpstream(
  deps: Pick<UpstreamServerDeps, 'connections' | 'subscriptions'>,
  ctx: GatewayContext,
  server: Server,
  closed: AbortSignal,
): Promise<void> {
  if (!ctx.session || ctx.server === '' || closed.aborted) return;
  const stop = deps.connections.onListChanged(ctx.server, (method) => {
    const sent =
      method === 'notifications/resources/list_changed'
        ? server.sendResourceListChanged()
        : server.sendPromptListChanged();
    void sent.catch(() => {});
  });
  closed.addEventListener('abort', stop, { once: true });
  const connection = deps.connections.connection(ctx.server);
  if (subscribable(connection))
    await deps.subscriptions.watch(ctx.session.id, connection.config, server, closed);
}
