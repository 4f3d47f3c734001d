import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { onTestFinished } from 'vitest';
import { createAppServer } from '../../src/app/server.js';
import type { Services } from '../../src/app/services.js';
import { serverTest } from './app-server.js';
import { admin } from './lifecycle.js';
import { startServices } from './services.js';

/** An SDK client of the gateway at `url` with this token (and profile p1 unless headers say otherwise). */
export async function gatewayClient(
  url: string,
  token: string,
  headers: Record<string, string> = { 'x-profile-id': 'p1' },
  capabilities: Record<string, unknown> = {},
): Promise<Client> {
  const client = new Client({ name: 'gateway-test-host', version: '3.1.4' }, { capabilities });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
  });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

/** Lets profile p1 call every test tool, and asks a person for `test.echo`. */
export async function echoAsks(services: Services) {
  await services.policy.set(
    { layer: 'PROFILE', scopeId: 'p1', toolPattern: 'test.*', effect: 'ALLOW' },
    admin,
  );
  await services.policy.set({ layer: 'USER', scopeId: 'u1', toolPattern: 'test.echo', effect: 'ASK' }, admin);
}

/**
 * `serverTest` with the gateway's hold short (holdMs) and progress frequent, and `mcpUrl`: the
 * gateway's /mcp on a real HTTP server over the test's services.
 */
export const gatewayTest = serverTest.extend<{
  holdMs: number;
  mcpUrl: string;
  services: Services;
  host: Client;
}>({
  holdMs: 1_500,
  services: async ({ testDb, holdMs }, use) => {
    const services = await startServices(testDb.database, { gateway: { holdMs, progressEveryMs: 200 } });
    await use(services);
    await services.stop();
  },
  mcpUrl: async ({ services }, use) => {
    const server = createAppServer(services, {
      allowedOrigins: ['https://allowed.example'],
      maxBodyBytes: 4096,
    });
    const address = await server.listen(0, '127.0.0.1');
    await use(`http://127.0.0.1:${address.port}/mcp`);
    await server.close();
  },
  /** An MCP host on /mcp with the agent token, after `echoAsks`: p1 calls every test tool, echo asks a person. */
  host: async ({ services, tokens, mcpUrl }, use) => {
    await echoAsks(services);
    await use(await gatewayClient(mcpUrl, tokens.AGENT));
  },
});
