import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface PerUserMcpServer {
  url: string;
  /** Every request's `Authorization` header, in order. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * An upstream that acts for each user: it takes `Bearer <token>` for any token `accepted` (the
 * admin's listing token and each user's own, or what a check of the token says), refuses others with 401, and its one tool `whoami`
 * answers with the `Authorization | X-User-Token` headers of the very request that called it.
 */
export async function startPerUserMcpServer(
  accepted: readonly string[] | ((token: string) => Promise<boolean>),
): Promise<PerUserMcpServer> {
  const accepts = async (authorization: string | undefined) => {
    const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : null;
    if (token === null) return false;
    return typeof accepted === 'function' ? accepted(token) : accepted.includes(token);
  };
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const authorizations: (string | undefined)[] = [];
  const http = createServer(async (req, res) => {
    authorizations.push(req.headers.authorization);
    if (!(await accepts(req.headers.authorization))) {
      res.writeHead(401, { 'www-authenticate': 'Bearer' }).end('unauthorized');
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      const server = new McpServer({ name: 'per-user', version: '1.0.0' });
      server.registerTool('whoami', { description: 'Says whose credential called it.' }, async (extra) => ({
        content: [
          {
            type: 'text',
            text: `${extra.requestInfo?.headers.authorization} | ${extra.requestInfo?.headers['x-user-token']}`,
          },
        ],
      }));
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
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
