import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type ElicitRequestURLParams,
  ElicitResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type ListToolsResult,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/index.js';
import type { PolicyService, RegistryService } from '../../calls/index.js';
import type { GatewayCalls, Held } from './calls.js';
import { type HostNotifier, progressOf } from './progress.js';
import { registryNameOf } from './rules/names.js';
import type { McpToolResult } from './rules/results.js';
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

/** What a handler of /mcp needs of the host request it answers, whoever carries it (SDK server or direct-answer.ts). */
export interface HostRequest extends HostNotifier {
  signal: AbortSignal;
  /** Offers a URL elicitation; the host's answer, if any, arrives as a request of its own, maybe to another process. */
  elicit: (params: ElicitRequestURLParams) => void;
}

export type GatewayHandlers = ReturnType<typeof gatewayHandlers>;

/**
 * The handlers of /mcp's tools/list and tools/call for one HTTP request: they read the request's
 * context (token, profile, session) and keep nothing between requests.
 */
export function gatewayHandlers(deps: GatewayServerDeps, ctx: GatewayContext, ended: AbortSignal) {
  const context = { userId: ctx.principal.userId, profileId: ctx.profileId };
  const elicitation = ctx.session?.clientCapabilities.elicitation as { url?: unknown } | undefined;

  const listTools = async (): Promise<ListToolsResult> => {
    const visible = await visibleTools(deps.policy, context);
    const tools = [...visible.advertised.byAdvertised].map(([advertised, name]) =>
      mcpToolOf(advertised, visible.specs.get(name)!),
    );
    return { tools: [...tools, awaitToolDefinition] };
  };

  const callTool = async (params: CallToolRequest['params'], host: HostRequest): Promise<McpToolResult> => {
    const called = params.name;
    const args = params.arguments ?? {};
    const held: Held = {
      signal: AbortSignal.any([host.signal, ended]),
      consoleUrl: deps.consoleUrl,
      advertised: called,
      awaitTool: AWAIT_TOOL_ADVERTISED,
      ...progressOf(params._meta?.progressToken, host),
      ...(elicitation?.url
        ? {
            waiting: (callId: string, url: string) =>
              host.elicit({
                mode: 'url',
                elicitationId: callId,
                url,
                message: 'A tool call is waiting for your approval. Open the console to decide it.',
              }),
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
  };

  return { listTools, callTool };
}

const GATEWAY_INSTRUCTIONS =
  'Tools governed by Agent Tool System: a call may wait for a person to approve it. A pending answer says so; call the same tool again with the same arguments to get its outcome.';

/** The low-level SDK server of one HTTP request to /mcp, for every method the direct answer leaves to it. */
export function gatewayServer(deps: GatewayServerDeps, ctx: GatewayContext, ended: AbortSignal): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true }, logging: {} },
    jsonSchemaValidator: SCHEMA_VALIDATOR,
    instructions: GATEWAY_INSTRUCTIONS,
  });
  const handlers = gatewayHandlers(deps, ctx, ended);
  server.setRequestHandler(ListToolsRequestSchema, handlers.listTools);
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    handlers.callTool(request.params, {
      signal: extra.signal,
      sendNotification: extra.sendNotification,
      elicit: (params) =>
        void extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema).catch(() => {}),
    }),
  );
  return server;
}
