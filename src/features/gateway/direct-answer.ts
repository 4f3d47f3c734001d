import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  CallToolRequestSchema,
  ErrorCode,
  type JSONRPCMessage,
  type JSONRPCRequest,
  ListToolsRequestSchema,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { jsonRpcError } from './http-errors.js';
import type { GatewayHandlers, HostRequest } from './mcp-server.js';

const DIRECT_METHODS = new Set(['tools/list', 'tools/call']);

/** The headers the SDK's Streamable HTTP transport answers a POSTed request with. */
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** A POST of /mcp that direct-answer.ts answers: one request (not a batch) of tools/list or tools/call. */
export function answeredDirectly(body: unknown): body is JSONRPCRequest {
  const message = body as Partial<JSONRPCRequest> | null;
  return (
    typeof message === 'object' &&
    message !== null &&
    !Array.isArray(message) &&
    message.id !== undefined &&
    DIRECT_METHODS.has(message.method ?? '')
  );
}

function valid<T>(schema: { safeParse(value: unknown): ZodSafe<T> }, request: JSONRPCRequest): T {
  const parsed = schema.safeParse(request);
  if (!parsed.success)
    throw new McpError(ErrorCode.InvalidParams, `Invalid ${request.method} request: ${parsed.error.message}`);
  return parsed.data;
}

type ZodSafe<T> = { success: true; data: T } | { success: false; error: { message: string } };

function errorOf(error: unknown): { code: number; message: string; data?: unknown } {
  const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
  return {
    code: typeof code === 'number' && Number.isSafeInteger(code) ? code : ErrorCode.InternalError,
    message: typeof message === 'string' ? message : 'Internal error',
    ...(data !== undefined ? { data } : {}),
  };
}

/**
 * /mcp's hot methods answered from the parsed JSON-RPC request on the SSE stream the SDK's
 * transport would write, with the same checks (Accept, MCP-Protocol-Version) and the same shapes:
 * a fresh SDK server and transport per request (any process answers any request, so nothing of
 * them can be kept) and its web Request/Response conversion were a quarter of such a request's
 * CPU. Progress and URL elicitation go out on the same stream, as the SDK sends a request's own.
 */
export async function answerDirectly(
  req: IncomingMessage,
  res: ServerResponse,
  request: JSONRPCRequest,
  handlers: GatewayHandlers,
  ended: AbortSignal,
): Promise<void> {
  const accept = req.headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream'))
    return jsonRpcError(
      res,
      406,
      -32000,
      'Not Acceptable: Client must accept both application/json and text/event-stream',
    );
  const version = req.headers['mcp-protocol-version'];
  if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
    return jsonRpcError(
      res,
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    );

  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
  const send = (message: JSONRPCMessage) => {
    if (!res.writableEnded && !res.destroyed)
      res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  };
  let nextId = 0;
  const host: HostRequest = {
    signal: ended,
    sendNotification: async (notification) => send({ jsonrpc: '2.0', ...notification }),
    elicit: (params) => send({ jsonrpc: '2.0', id: nextId++, method: 'elicitation/create', params }),
  };
  try {
    let result: unknown;
    if (request.method === 'tools/list') {
      valid(ListToolsRequestSchema, request);
      result = await handlers.listTools();
    } else {
      result = await handlers.callTool(valid(CallToolRequestSchema, request).params, host);
    }
    send({ jsonrpc: '2.0', id: request.id, result: result as Record<string, unknown> });
  } catch (error) {
    send({ jsonrpc: '2.0', id: request.id, error: errorOf(error) });
  }
  res.end();
}
