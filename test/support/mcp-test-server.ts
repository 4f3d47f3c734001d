import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** A 1×1 transparent PNG. */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export interface TestMcpServerOptions {
  /** Page size of tools/list, so that clients must follow nextCursor. */
  pageSize?: number;
  /** Adds `crash`, which kills the process mid-call: only for the stdio child. */
  crashable?: boolean;
}

type Handler = (
  request: { params?: Record<string, unknown> },
  extra: unknown,
) => Promise<Record<string, unknown>>;

/**
 * A real MCP server built with the SDK, for tests: one tool per behaviour the client must handle.
 * The same server runs as a stdio child process (mcp-stdio-server.ts) and behind HTTP.
 */
export function createTestMcpServer(options: TestMcpServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: 'ats-test-server', version: '1.2.3' },
    { capabilities: { tools: { listChanged: true } } },
  );
  const cancelled: string[] = [];
  let slowInFlight = 0;
  const added = new Map<string, RegisteredTool>();

  server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'Returns the text it is given.',
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );

  server.registerTool(
    'stats',
    {
      description: 'Counts and sums numbers.',
      inputSchema: { values: z.array(z.number()) },
      outputSchema: { count: z.number(), sum: z.number() },
    },
    async ({ values }) => {
      const structured = { count: values.length, sum: values.reduce((a, b) => a + b, 0) };
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
    },
  );

  // Listed with an output schema; its answer (see the tools/call wrapper below) breaks it.
  server.registerTool(
    'bad_structured',
    {
      description: 'Returns structured content that breaks its own output schema.',
      outputSchema: { count: z.number() },
    },
    async () => ({ content: [], structuredContent: { count: 0 } }),
  );

  server.registerTool(
    'fail',
    { description: 'Answers with a tool error result.', inputSchema: { message: z.string() } },
    async ({ message }) => ({ content: [{ type: 'text', text: message }], isError: true }),
  );

  server.registerTool('image', { description: 'Returns a tiny PNG.' }, async () => ({
    content: [{ type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' }],
  }));

  server.registerTool(
    'links',
    { description: 'Returns a resource link and an embedded resource.' },
    async () => ({
      content: [
        {
          type: 'resource_link',
          uri: 'test://docs/one',
          name: 'one',
          description: 'The first document',
          mimeType: 'text/plain',
        },
        { type: 'resource', resource: { uri: 'test://docs/two', mimeType: 'text/markdown', text: '# Two' } },
      ],
    }),
  );

  server.registerTool(
    'slow',
    { description: 'Waits, unless cancelled.', inputSchema: { ms: z.number() } },
    async ({ ms }, extra) => {
      slowInFlight += 1;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          cancelled.push('slow');
          resolve();
        });
      });
      slowInFlight -= 1;
      return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
    },
  );

  server.registerTool(
    'progress',
    {
      description: 'Works in steps and reports progress after each.',
      inputSchema: { steps: z.number(), intervalMs: z.number() },
    },
    async ({ steps, intervalMs }, extra) => {
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= steps; i += 1) {
        await new Promise((r) => setTimeout(r, intervalMs));
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: steps },
          });
        }
      }
      return { content: [{ type: 'text', text: `done in ${steps} steps` }] };
    },
  );

  server.registerTool(
    'cancellations',
    { description: 'Which calls this server saw cancelled.' },
    async () => ({
      content: [{ type: 'text', text: cancelled.join(',') }],
      structuredContent: { cancelled },
    }),
  );

  // A cancel that lands before the client has sent tools/call never reaches the server, so a test
  // of cancellation reaching the server first waits until the server is running the call.
  server.registerTool(
    'in_flight',
    { description: 'How many slow calls this server is running.' },
    async () => ({
      content: [{ type: 'text', text: String(slowInFlight) }],
      structuredContent: { slow: slowInFlight },
    }),
  );

  server.registerTool(
    'add_tool',
    {
      description: 'Registers a new tool (the server then sends tools/list_changed).',
      inputSchema: { name: z.string() },
    },
    async ({ name }) => {
      added.set(
        name,
        server.registerTool(name, { description: `Added at run time: ${name}.` }, async () => ({
          content: [{ type: 'text', text: `${name} says hi` }],
        })),
      );
      return { content: [{ type: 'text', text: `added ${name}` }] };
    },
  );

  server.registerTool(
    'remove_tool',
    { description: 'Removes a tool added with add_tool.', inputSchema: { name: z.string() } },
    async ({ name }) => {
      added.get(name)?.remove();
      added.delete(name);
      return { content: [{ type: 'text', text: `removed ${name}` }] };
    },
  );

  server.registerTool(
    'environment',
    { description: 'Reports its environment and working directory.' },
    async () => ({
      content: [
        {
          type: 'text',
          text: JSON.stringify({ secret: process.env.MCP_TEST_SECRET ?? null, cwd: process.cwd() }),
        },
      ],
    }),
  );

  // Not a valid registry name once prefixed: the client must reject it and say why.
  server.registerTool('bad/name', { description: 'A name with a slash.' }, async () => ({ content: [] }));

  if (options.crashable) {
    server.registerTool('crash', { description: 'Kills the server process mid-call.' }, async () => {
      process.stderr.write('crashing on purpose\n');
      process.exit(3);
    });
  }

  // The SDK's McpServer neither paginates tools/list nor lets a tool break its own output schema;
  // its registered request handlers are wrapped for both (test-only access to a private map).
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
  const list = handlers.get('tools/list')!;
  const call = handlers.get('tools/call')!;
  const pageSize = options.pageSize;
  if (pageSize) {
    handlers.set('tools/list', async (request, extra) => {
      const all = (await list(request, extra)).tools as unknown[];
      const offset = Number(request.params?.cursor ?? 0);
      const next = offset + pageSize;
      return { tools: all.slice(offset, next), ...(next < all.length ? { nextCursor: String(next) } : {}) };
    });
  }
  handlers.set('tools/call', async (request, extra) => {
    if (request.params?.name === 'bad_structured')
      return { content: [{ type: 'text', text: '{"count":"many"}' }], structuredContent: { count: 'many' } };
    return call(request, extra);
  });
  return server;
}
