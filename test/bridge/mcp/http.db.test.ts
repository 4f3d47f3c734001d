import { afterEach, describe, expect } from 'vitest';
import { dbTest as test } from '../../support/fixtures.js';
import { waitFor } from '../../support/lifecycle.js';
import { addServer, allowMcp, callApproved, waitForState } from '../../support/mcp.js';
import { startHttpMcpServer } from '../../support/mcp-http-server.js';

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

describe('MCP over Streamable HTTP: the SDK test server behind an in-test HTTP server', () => {
  test('connects with the configured headers, lists, calls, and refreshes on list_changed', async ({
    services,
  }) => {
    const http = await startHttpMcpServer('let-me-in');
    servers.push(http);
    await addServer(services, {
      name: 'web',
      transport: 'STREAMABLE_HTTP',
      url: http.url,
      headers: [{ name: 'Authorization', value: 'Bearer let-me-in' }],
    });
    const status = await waitForState(services, 'web', 'CONNECTED');
    expect(status.toolCount).toBe(13);
    await allowMcp(services, 'mcp.web.*');
    const stats = await callApproved(services, 'mcp.web.stats', { values: [4, 5] });
    expect(stats.result!.structured).toEqual({ count: 2, sum: 9 });
    await callApproved(services, 'mcp.web.add_tool', { name: 'late' }, stats.runId);
    const late = await waitFor(() => services.registry.get('mcp.web.late'));
    expect(late).toMatchObject({ source: 'MCP', enabled: true });
  });

  test('wrong credentials leave the server FAILED with the HTTP error, and retried', async ({ services }) => {
    const http = await startHttpMcpServer('let-me-in');
    servers.push(http);
    await addServer(services, {
      name: 'web',
      transport: 'STREAMABLE_HTTP',
      url: http.url,
      headers: [{ name: 'Authorization', value: 'Bearer wrong' }],
    });
    const failed = await waitForState(services, 'web', 'FAILED');
    expect(failed.lastError).toBe(
      'could not connect: Streamable HTTP error: Error POSTing to endpoint: unauthorized',
    );
    expect(failed.nextRetryAt).not.toBeNull();
  });
});
