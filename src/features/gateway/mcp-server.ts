import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/index.js';
import type { PolicyService, RegistryService } from '../../calls/index.js';
import type { GatewayCalls, Held } from './calls.js';
import { progressOf } from './progress.js';
import { registryNameOf } from './rules/names.js';
import type { GatewayContext } from './sessions.js';
import {
  AWAIT_TOOL,
  AWAIT_TOOL_ADVERTISED,
  awaitToolDefinition,
  type CalledTool,
  mcpToolOf,
  resolveCalled,
  visibleTool,
  visibleTools,
} from './tool-list.js';

export const SERVER_INFO = { name: 'agent-tool-system', version: '1.0.0' };

/**
 * The SDK server builds an Ajv instance of its own unless given a validator, and the gateway builds
 * a server per request: that was a tenth of a relayed call's CPU. Its validator serves only
 * `elicitInput` forms, which the gateway never sends (it relays the upstream's requests as they
 * are), so one validator serves every server, compiling with an Ajv of its own when it is used at
 * all (a shared Ajv would keep every schema it ever compiled).
 */
export const SCHEMA_VALIDATOR: jsonSchemaValidator = {
  getValidator: (schema) => new AjvJsonSchemaValidator().getValidator(schema),
};

export interface GatewayServerDeps {
  policy: PolicyService;
  registry: RegistryService;
  calls: GatewayCalls;
  /** The console page of a call, for the pending answer and URL elicitation. */
  consoleUrl: (callId: string) => string;
}

/** A host may call a tool that does not exist: MCP answers that as invalid params, as we answer a hidden one. */
export const unknownTool = (name: string) => new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);

/**
 * The tool a host called on /mcp: a plain advertised name is decoded and that one tool resolved;
 * any other name (hashed, dotted, unknown) is looked up in the whole visible list.
 */
async function calledTool(
  deps: GatewayServerDeps,
  context: { userId: string | null; profileId: string | null },
  called: string,
): Promise<CalledTool | null> {
  const plain = registryNameOf(called);
  const tool = plain ? await visibleTool(deps, context, plain) : null;
  if (tool) return tool;
  const visible = await visibleTools(deps.policy, context);
  const name = resolveCalled(called, visible);
  return name ? { name, mayAsk: visible.asking.has(name) } : null;
}

/**
 * The low-level SDK server of one HTTP request to /mcp: its handlers read the request's context
 * (token, profile, session) and keep nothing between requests.
 */
export function gatewayServer(deps: GatewayServerDeps, ctx: GatewayContext, ended: AbortSignal): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true }, logging: {} },
    jsonSchemaValidator: SCHEMA_VALIDATOR,
    instructions:
      'Tools governed by Agent Tool System: a call may wait for a person to approve it. A pending answer says so; call the same tool again with the same arguments to get its outcome.',
  });
  const context = { userId: ctx.principal.userId, profileId: ctx.profileId };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const visible = await visibleTools(deps.policy, context);
    const tools = [...visible.advertised.byAdvertised].map(([advertised, name]) =>
      mcpToolOf(advertised, visible.specs.get(name)!),
    );
    return { tools: [...tools, awaitToolDefinition] };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const called = request.params.name;
    const args = request.params.arguments ?? {};
    const signal = AbortSignal.any([extra.signal, ended]);
    const elicitation = ctx.session?.clientCapabilities.elicitation as { url?: unknown } | undefined;
    const held: Held = {
      signal,
      consoleUrl: deps.consoleUrl,
      advertised: called,
      awaitTool: AWAIT_TOOL_ADVERTISED,
      ...progressOf(request.params._meta?.progressToken, extra),
      // Offered, not awaited: the host's answer comes back as a request of its own, maybe to another process.
      ...(elicitation?.url
        ? {
            waiting: (callId: string, url: string) =>
              void extra
                .sendRequest(
                  {
                    method: 'elicitation/create',
                    params: {
                      mode: 'url',
                      elicitationId: callId,
                      url,
                      message: 'A tool call is waiting for your approval. Open the console to decide it.',
                    },
                  },
                  ElicitResultSchema,
                )
                .catch(() => {}),
          }
        : {}),
    };
    if (called === AWAIT_TOOL_ADVERTISED || called === AWAIT_TOOL) {
      const callId = typeof args.callId === 'string' ? args.callId : '';
      const maxWaitMs = typeof args.maxWaitMs === 'number' ? args.maxWaitMs : undefined;
      return deps.calls.await(ctx, callId, maxWaitMs, held);
    }
    const tool = await calledTool(deps, context, called);
    if (!tool) throw unknownTool(called);
    return deps.calls.call(ctx, tool.name, args, held, tool);
  });
  return server;
}
