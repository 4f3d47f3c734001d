import { createServer as createEverythingServer } from '@modelcontextprotocol/server-everything/dist/server/index.js';
import { type BearerMcpHttpServer, serveBearerMcp } from './mcp-http-server.js';

export type EverythingHttpServer = BearerMcpHttpServer;

/**
 * The published reference MCP server (@modelcontextprotocol/server-everything: tools such as
 * `get-sum`, and `trigger-sampling-request` for clients that can sample) over Streamable HTTP on a
 * free loopback port, refusing any request without `Authorization: Bearer <token>` with 401.
 */
export function startEverythingHttp(token: string): Promise<EverythingHttpServer> {
  return serveBearerMcp(token, async (transport) => {
    const { server, cleanup } = createEverythingServer();
    await server.connect(transport);
    return () => cleanup(transport.sessionId);
  });
}
