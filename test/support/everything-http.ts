import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createServer as createEverythingServer } from '@modelcontextprotocol/server-everything/dist/server/index.js';

export interface EverythingHttpServer {
  url: string;
  /** The Authorization header of every request that reached it, in order (the token checks read these). */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * The published reference MCP server (@modelcontextprotocol/server-everything: tools such as
 * `get-sum`, and `trigger-sampling-request` for clients that can sample) over Streamable HTTP on a
 * free loopback port, refusing any request without `Authorization: Bearer <token>` with 401.
 */
export async function startEverythingHttp(token: string): Promise<EverythingHttpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const cleanups: (() => void)[] = [];
  const authorizations: (string | undefined)[] = [];
  const http = createServer(async (req, res) => {
    authorizations.push(req.headers.authorization);
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'www-authenticate': 'Bearer' }).end('unauthorized');
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId) {
        res.writeHead(404).end();
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      const { server, cleanup } = createEverythingServer();
      cleanups.push(() => cleanup(created.sessionId));
      await server.connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    authorizations,
    async close() {
      for (const cleanup of cleanups) cleanup();
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
