import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpConnectionManager } from '../../bridge/mcp/index.js';
import type { PolicyService, RegistryService } from '../../calls/index.js';
import type { GatewayCalls } from './calls.js';
import { SERVER_INFO, unknownTool } from './mcp-server.js';
import { progressOf } from './progress.js';
import type { GatewayContext } from './sessions.js';
import { AWAIT_TOOL, type CalledTool, mcpToolOf, visibleTool, visibleTools } from './tool-list.js';

export interface UpstreamServerDeps {
  policy: PolicyService;
  registry: RegistryService;
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
    return deps.calls.call(
      ctx,
      tool.name,
      request.params.arguments ?? {},
      {
        signal: AbortSignal.any([extra.signal, ended]),
        consoleUrl: deps.consoleUrl,
        advertised: request.params.name,
        awaitTool: null,
        ...progressOf(request.params._meta?.progressToken, extra),
      },
      tool.mayAsk,
    );
  });

  const forward = (request: { method: string; params?: Record<string, unknown> }, signal: AbortSignal) =>
    connection.forward(request, { signal });
  if (capabilities.logging)
    server.setRequestHandler(SetLevelRequestSchema, (request, extra) => forward(request, extra.signal));
  server.fallbackRequestHandler = (request, extra) => forward(request, extra.signal) as never;
  return server;
}
