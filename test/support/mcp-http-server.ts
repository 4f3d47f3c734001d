import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createTestMcpServer } from './mcp-test-server.js';

export interface BearerMcpHttpServer {
  url: string;
  /** The Authorization header of every request that reached it, in order (the token checks read these). */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * An MCP server over Streamable HTTP on a free loopback port, one session per client, refusing any
 * request without `Authorization: Bearer <token>` (a token `accepts`: this one, or any the check
 * allows) with 401. `connect` serves a new session on its transport and returns what to do when the
 * server closes.
 */
export async function serveBearerMcp(
  accepts: string | ((token: string) => Promise<boolean>),
  connect: (transport: StreamableHTTPServerTransport) => Promise<() => void>,
): Promise<BearerMcpHttpServer> {
  const allowed = async (authorization: string | undefined) => {
    if (!authorization?.startsWith('Bearer ')) return false;
    const token = authorization.slice('Bearer '.length);
    return typeof accepts === 'string' ? token === accepts : accepts(token);
  };
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const cleanups: (() => void)[] = [];
  const authorizations: (string | undefined)[] = [];
  const http = createServer(async (req, res) => {
    authorizations.push(req.headers.authorization);
    if (!(await allowed(req.headers.authorization))) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('unauthorized');
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
      cleanups.push(await connect(created));
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

/** The test MCP server over Streamable HTTP on a free loopback port, behind a bearer token. */
export function startHttpMcpServer(token: string): Promise<BearerMcpHttpServer> {
  return serveBearerMcp(token, async (transport) => {
    await createTestMcpServer().connect(transport);
    return () => {};
  });
}
