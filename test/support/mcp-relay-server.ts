import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type BearerMcpHttpServer, serveBearerMcp } from './mcp-http-server.js';

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/** What the host answered, or the JSON-RPC error it (or the gateway) gave, as the tool reports it. */
async function answerOf(ask: () => Promise<unknown>) {
  try {
    return text(JSON.stringify(await ask()));
  } catch (error) {
    const e = error as { code?: number; message: string };
    return text(JSON.stringify({ error: { code: e.code, message: e.message } }));
  }
}

/**
 * A real SDK MCP server whose tools talk back to the client during a call, for the gateway's relay:
 * `logs` sends two log messages, `progress` three progress notifications (0, 50, 100 of 100),
 * `sample`, `elicit` and `roots` ask the client (sampling, an elicitation form with defaults and
 * enums, roots) and answer with what the client answered, or its error.
 */
export function createRelayMcpServer(): McpServer {
  const server = new McpServer(
    { name: 'ats-relay-server', version: '1.0.0' },
    { capabilities: { tools: {}, logging: {} } },
  );
  server.registerTool('logs', { description: 'Logs twice, then answers.' }, async (extra) => {
    for (const data of ['first', 'second'])
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data } });
    return text('logged');
  });
  server.registerTool('progress', { description: 'Reports progress three times.' }, async (extra) => {
    const progressToken = extra._meta?.progressToken;
    if (progressToken !== undefined)
      for (const progress of [0, 50, 100])
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress, total: 100, message: `at ${progress}` },
        });
    return text('done');
  });
  server.registerTool('sample', { description: 'Asks the client to sample.' }, async (extra) =>
    answerOf(() =>
      extra.sendRequest(
        {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 20 },
        },
        CreateMessageResultSchema,
      ),
    ),
  );
  server.registerTool('elicit', { description: 'Asks the client for a form.' }, async (extra) =>
    answerOf(() =>
      extra.sendRequest(
        {
          method: 'elicitation/create',
          params: {
            message: 'Who are you?',
            requestedSchema: {
              type: 'object',
              properties: {
                name: { type: 'string', default: 'Ada' },
                color: { type: 'string', enum: ['red', 'green'], default: 'green' },
              },
            },
          },
        },
        ElicitResultSchema,
      ),
    ),
  );
  server.registerTool('roots', { description: 'Asks the client for its roots.' }, async (extra) =>
    answerOf(() => extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema)),
  );
  return server;
}

/** The relay server over Streamable HTTP (one session per client), refusing requests without the token. */
export function startRelayMcpHttp(token: string): Promise<BearerMcpHttpServer> {
  return serveBearerMcp(token, async (transport) => {
    const server = createRelayMcpServer();
    await server.connect(transport);
    return () => void server.close();
  });
}
