import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpConnectionManager } from '../../bridge/mcp/index.js';
import type { PolicyService } from '../../calls/index.js';
import type { GatewayCalls } from './calls.js';
import { SERVER_INFO, unknownTool } from './mcp-server.js';
import { progressOf } from './progress.js';
import type { GatewayContext } from './sessions.js';
import { AWAIT_TOOL, mcpToolOf, visibleTools } from './tool-list.js';

export interface UpstreamServerDeps {
  policy: PolicyService;
  calls: GatewayCalls;
  connections: McpConnectionManager;
  consoleUrl: (callId: string) => string;
}

/** The registry names of one upstream's tools: `mcp.<server>.<its own name>` (see bridge/mcp/tool-mapping.ts). */
const registryName = (server: string, remote: string) => `mcp.${server}.${remote}`;

/**
 * The SDK server of one HTTP request to `/mcp/<server>`: the upstream's tools under its own names,
 * those the policy lets this token's user and profile see, each call through the lifecycle; every
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
    { capabilities: { ...capabilities, tools: { listChanged: true } } },
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

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { own } = await ownTools();
    const name = own.get(request.params.name);
    if (!name || name === AWAIT_TOOL) throw unknownTool(request.params.name);
    return deps.calls.call(ctx, name, request.params.arguments ?? {}, {
      signal: AbortSignal.any([extra.signal, ended]),
      consoleUrl: deps.consoleUrl,
      advertised: request.params.name,
      awaitTool: null,
      ...progressOf(request.params._meta?.progressToken, extra),
    });
  });

  const forward = (request: { method: string; params?: Record<string, unknown> }, signal: AbortSignal) =>
    connection.forward(request, { signal });
  if (capabilities.logging)
    server.setRequestHandler(SetLevelRequestSchema, (request, extra) => forward(request, extra.signal));
  server.fallbackRequestHandler = (request, extra) => forward(request, extra.signal) as never;
  return server;
}
