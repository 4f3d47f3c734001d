import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPostgresUrl, withDatabase } from '../../support/env.js';
import { within } from '../../support/failover.js';
import { type NotifyMcpServer, startNotifyMcpHttp } from '../../support/mcp-notify-server.js';
import { freshDatabase } from '../../support/process-database.js';
import { graphqlOver, type ServerProcess, startServer } from '../../support/server-process.js';

/**
 * Real server processes on one Postgres behind /mcp/<server>, with no session affinity: a host's
 * requests go to process A, its GET stream (and its notifications) to B, as a load balancer
 * without affinity may send them. A subscription made through A is delivered on B's stream; when
 * B dies, the host's stream reconnects to C, which holds the upstream's stream from then on.
 */
const ADMIN = 'notify-admin-token-0123456789';
const dbName = `ats_notify_${process.pid}`;
const url = withDatabase(testPostgresUrl, dbName);
const admin = postgres(testPostgresUrl, { max: 1, onnotice: () => {} });
const servers: ServerProcess[] = [];
const clients: Client[] = [];
const env = { DATABASE_URL: url, ADMIN_TOKEN: ADMIN };
let upstream: NotifyMcpServer | null = null;
let postgresDown = '';
let agentToken = '';

const gql = (server: ServerProcess, query: string, variables?: Record<string, unknown>) =>
  graphqlOver(server.url, ADMIN, query, variables);

const isNotification = (body: unknown) =>
  typeof body === 'string' &&
  ([JSON.parse(body)].flat() as Record<string, unknown>[]).every(
    (m) => typeof m.method === 'string' && !('id' in m) && m.method !== 'notifications/initialized',
  );

/** Where the host's messages go: requests to `requests`, its GET stream and notifications to `stream`. */
interface Routes {
  requests: ServerProcess;
  stream: ServerProcess;
}

/** A host of `/mcp/up` routed by `routes`; resolves once its GET stream is open. */
async function splitHost(routes: Routes, updated: string[]) {
  let opened: () => void = () => {};
  const streamOpen = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const client = new Client({ name: 'split-host', version: '1.0.0' }, { capabilities: {} });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updated.push(n.params.uri);
  });
  const route: typeof fetch = async (input, init) => {
    const to = init?.method === 'GET' || isNotification(init?.body) ? routes.stream : routes.requests;
    const target = new URL(String(input));
    target.host = new URL(to.origin).host;
    const response = await fetch(target, init);
    if (init?.method === 'GET' && response.ok) opened();
    return response;
  };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${routes.requests.origin}/mcp/up`), {
      requestInit: { headers: { authorization: `Bearer ${agentToken}`, 'x-profile-id': 'p1' } },
      fetch: route,
    }),
  );
  clients.push(client);
  await streamOpen;
  return client;
}

beforeAll(async () => {
  postgresDown = await freshDatabase(admin, dbName);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await Promise.all(servers.map((s) => s.kill()));
  await upstream?.close();
  if (!postgresDown) await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end({ timeout: 5 });
});

describe('notifications across processes: requests on one process, the host’s stream on another', () => {
  let a: ServerProcess;
  let b: ServerProcess;

  it('two servers on one database, both connected to the notify server `up`, its tools allowed', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    upstream = await startNotifyMcpHttp('up-token');
    a = await startServer(env);
    servers.push(a);
    b = await startServer(env);
    servers.push(b);
    const added = await gql(
      a,
      `mutation($url: String!) { addMcpServer(input: { name: "up", transport: STREAMABLE_HTTP, url: $url,
        headers: [{ name: "Authorization", value: "Bearer up-token" }] }) { name } }`,
      { url: upstream.url },
    );
    expect(added.errors).toBeUndefined();
    for (const server of [a, b])
      await within('up connected with its tools', 30_000, async () => {
        const res = await gql(server, '{ mcpServer(name: "up") { status { state toolCount } } }');
        const status = res.data?.mcpServer?.status;
        return status?.state === 'CONNECTED' && status.toolCount > 0;
      });
    const rule =
      '{ layer: PROFILE, scopeId: "p1", toolPattern: "mcp.up.*", effect: ALLOW, skipApproval: true }';
    expect((await gql(a, `mutation { setPolicyRule(input: ${rule}) { id } }`)).errors).toBeUndefined();
    expect(
      (
        await gql(
          b,
          'mutation { updateTool(name: "mcp.up.slow", input: { permission: ALWAYS_ALLOW }) { name } }',
        )
      ).errors,
    ).toBeUndefined();
    const created = await gql(
      a,
      'mutation { createApiToken(input: { name: "host", role: AGENT, userId: "u1", profiles: ["p1"] }) { token } }',
    );
    agentToken = created.data.createApiToken.token;
  });

  it('a subscription made through A is delivered on the stream B holds', async ({ skip }) => {
    if (postgresDown) skip(postgresDown);
    const updated: string[] = [];
    const host = await splitHost({ requests: a, stream: b }, updated);
    await host.subscribeResource({ uri: 'watch://a' });
    await upstream!.touch('watch://a');
    await within('the update on the host’s stream', 10_000, async () => updated.length > 0);
    expect(updated).toEqual(['watch://a']);
  });

  it('a cancellation sent to B cancels the call A runs', async ({ skip }) => {
    if (postgresDown) skip(postgresDown);
    const host = await splitHost({ requests: a, stream: b }, []);
    const controller = new AbortController();
    const call = host.request(
      { method: 'tools/call', params: { name: 'slow', arguments: {} } },
      CallToolResultSchema,
      { signal: controller.signal },
    );
    await within('the slow call running upstream', 10_000, async () => upstream!.running.length === 1);
    controller.abort('stop');
    await expect(call).rejects.toThrow();
    await within('the upstream told to stop', 10_000, async () => upstream!.cancelled.length === 1);
  });

  it('when the process holding the stream dies, the host’s stream reconnects to another, which delivers the updates', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    const updated: string[] = [];
    const routes = { requests: a, stream: b };
    const host = await splitHost(routes, updated);
    await host.subscribeResource({ uri: 'watch://b' });
    const c = await startServer(env);
    servers.push(c);
    await within('up connected on C', 30_000, async () => {
      const res = await gql(c, '{ mcpServer(name: "up") { status { state } } }');
      return res.data?.mcpServer?.status?.state === 'CONNECTED';
    });
    routes.stream = c;
    await b.kill();
    await within('an update on the reconnected stream', 20_000, async () => {
      await upstream!.touch('watch://b');
      return updated.length > 0;
    });
    expect(new Set(updated)).toEqual(new Set(['watch://b']));
  });
});
