import type { Readable, Writable } from 'node:stream';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';

export interface PipeOptions {
  url: URL;
  token: string;
  /** The host's side: stdin and stdout of this process in production, anything in tests. */
  input: Readable;
  output: Writable;
  /** One line for the host's log (stderr): never JSON-RPC, never the token. */
  log(line: string): void;
}

/** JSON-RPC error code for a request the bridge could not hand to the gateway (implementation-defined range). */
const GATEWAY_UNAVAILABLE = -32001;

/**
 * What went wrong talking to the gateway, in words a person configuring a host can act on. The
 * SDK's own messages ("fetch failed", "Error POSTing to endpoint") name neither the URL nor the fix.
 */
export function describeFailure(error: unknown, url: URL): string {
  if (error instanceof StreamableHTTPError) {
    if (error.code === 401)
      return `the gateway at ${url} refused the token (HTTP 401): give a valid, unexpired AGENT API token (--token-env NAME or --token)`;
    if (error.code === 403)
      return `the gateway at ${url} does not let this token in (HTTP 403): it must be an AGENT token whose user may use this endpoint`;
    if (error.code === 404)
      return `nothing answers MCP at ${url} (HTTP 404): check the URL (…/mcp or …/mcp/<server>) or the server's session expired`;
    return `the gateway at ${url} answered HTTP ${error.code}: ${error.message}`;
  }
  // fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, a refused port) is its cause.
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (error instanceof TypeError && cause)
    return `cannot reach the gateway at ${url} (${cause.code ?? cause.message}): is the server running and the URL right?`;
  return `talking to the gateway at ${url} failed: ${(error as Error)?.message ?? String(error)}`;
}

/**
 * A stdio MCP server that is only a pipe: every JSON-RPC message from the host goes to the
 * gateway's Streamable HTTP endpoint with the bearer header, and every message from the gateway
 * (responses, notifications, its own requests such as sampling or elicitation) goes back to the
 * host unchanged. The HTTP transport keeps the session id and opens the server's event stream
 * after `notifications/initialized`, as the SDK client would.
 *
 * Resolves when the host closes stdin (the session is ended on the gateway first).
 */
export async function pipeStdioToHttp(options: PipeOptions): Promise<void> {
  const { url, log } = options;
  const http = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${options.token}` } },
  });
  const stdio = new StdioServerTransport(options.input, options.output);
  const initializeIds = new Set<string | number>();
  let lastFailure = '';
  const report = (line: string) => {
    // A gateway that is down fails every message the same way: say it once, not per message.
    if (line !== lastFailure) log(line);
    lastFailure = line;
  };

  stdio.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') initializeIds.add(message.id);
    http.send(message).then(
      () => {
        lastFailure = '';
      },
      (error: unknown) => {
        const text = describeFailure(error, url);
        report(text);
        // A request must be answered or the host waits for ever; a notification has nobody to tell.
        if (isJSONRPCRequest(message))
          void stdio.send({
            jsonrpc: '2.0',
            id: message.id,
            error: { code: GATEWAY_UNAVAILABLE, message: text },
          });
      },
    );
  };
  http.onmessage = (message: JSONRPCMessage) => {
    // The negotiated version goes on every later request as MCP-Protocol-Version, which the SDK
    // client would set itself after initialize; a pipe must read it off the answer.
    if (isJSONRPCResultResponse(message) && initializeIds.delete(message.id)) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') http.setProtocolVersion(version);
    }
    void stdio.send(message);
  };
  // The transport also reports here what a send throws: the same line, said once by report().
  http.onerror = (error: Error) => report(describeFailure(error, url));
  stdio.onerror = (error: Error) => log(`bad message from the host: ${error.message}`);

  const ended = new Promise<void>((resolve) => {
    options.input.once('end', resolve);
    options.input.once('close', resolve);
  });
  await http.start();
  await stdio.start();
  await ended;
  await http.terminateSession().catch(() => undefined);
  await Promise.allSettled([http.close(), stdio.close()]);
}
