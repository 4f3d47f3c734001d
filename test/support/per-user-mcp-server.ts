import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type BearerMcpHttpServer, serveBearerMcp } from './mcp-http-server.js';

export type PerUserMcpServer = BearerMcpHttpServer;

/**
 * An upstream that acts for each user: it takes `Bearer <token>` for any token `accepted` (the
 * admin's listing token and each user's own, or what a check of the token says), refuses others with 401, and its one tool `whoami`
 * answers with the `Authorization | X-User-Token` headers of the very request that called it.
 */
export function startPerUserMcpServer(
  accepted: readonly string[] | ((token: string) => Promise<boolean>),
): Promise<PerUserMcpServer> {
  const accepts =
    typeof accepted === 'function' ? accepted : async (token: string) => accepted.includes(token);
  return serveBearerMcp(accepts, async (transport) => {
    const server = new McpServer({ name: 'per-user', version: '1.0.0' });
    server.registerTool('whoami', { description: 'Says whose credential called it.' }, async (extra) => ({
      content: [
        {
          type: 'text',
          text: `${extra.requestInfo?.headers.authorization} | ${extra.requestInfo?.headers['x-user-token']}`,
        },
      ],
    }));
    await server.connect(transport);
    return () => {};
  });
}
