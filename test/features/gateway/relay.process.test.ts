import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPostgresUrl, withDatabase } from '../../support/env.js';
import { within } from '../../support/failover.js';
import type { BearerMcpHttpServer } from '../../support/mcp-http-server.js';
import { startRelayMcpHttp } from '../../support/mcp-relay-server.js';
import { freshDatabase } from '../../support/process-database.js';
import { graphqlOver, type ServerProcess, startServer } from '../../support/server-process.js';

/**
 * Two real server processes on one Postgres behind /mcp/<server>, with no session affinity: the
 * host's tools/call is held by process A, and its answer to what the upstream asked during the
 * call (a POST of its own) is sent to process B, which carries it to A through Postgres.
 */
const ADMIN = 'relay-admin-token-0123456789';
const dbName = `ats_relay_${process.pid}`;
const url = withDatabase(testPostgresUrl, dbName);
const admin = postgres(testPostgresUrl, { max: 1, onnotice: () => {} });
const db = postgres(url, { max: 1, onnotice: () => {} });
const servers: ServerProcess[] = [];
const clients: Client[] = [];
const env = { DATABASE_URL: url, ADMIN_TOKEN: ADMIN };
let upstream: BearerMcpHttpServer | null = null;
let postgresDown = '';
let agentToken = '';

const gql = (server: ServerProcess, query: string, variables?: Record<string, unknown>) =>
  graphqlOver(server.url, ADMIN, query, variables);

const isAnswer = (body: unknown) =>
  typeof body === 'string' &&
  ([JSON.parse(body)].flat() as Record<string, unknown>[]).every((m) => 'id' in m && !('method' in m));

/**
 * A host on `/mcp/up` of `a` that declares sampling and elicitation, and whose answers to the
 * server's requests go to `b` instead (what a load balancer without affinity may do); `answeredOn`
 * lists the origins its answers went to.
 */
async function splitHost(a: ServerProcess, b: ServerProcess, answeredOn: string[]): Promise<Client> {
  const client = new Client(
    { name: 'split-host', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} } } },
  );
  const route: typeof fetch = (input, init) => {
    if (init?.method !== 'POST' || !isAnswer(init.body)) return fetch(input, init);
    const target = new URL(String(input));
    target.host = new URL(b.origin).host;
    answeredOn.push(target.origin);
    return fetch(target, init);
  };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${a.origin}/mcp/up`), {
      requestInit: { headers: { authorization: `Bearer ${agentToken}`, 'x-profile-id': 'p1' } },
      fetch: route,
    }),
  );
  clients.push(client);
  return client;
}

const textOf = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]!.text;

beforeAll(async () => {
  postgresDown = await freshDatabase(admin, dbName);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await Promise.all(servers.map((s) => s.kill()));
  await upstream?.close();
  await db.end({ timeout: 5 });
  if (!postgresDown) await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end({ timeout: 5 });
});

describe('relayed requests across processes: the host answers on another process than the one holding its call', () => {
  let a: ServerProcess;
  let b: ServerProcess;

  it('two servers on one database, both connected to the relay server `up`, its tools allowed', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    upstream = await startRelayMcpHttp('up-token');
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
    for (const tool of ['sample', 'elicit'])
      expect(
        (
          await gql(
            b,
            `mutation { updateTool(name: "mcp.up.${tool}", input: { permission: ALWAYS_ALLOW }) { name } }`,
          )
        ).errors,
      ).toBeUndefined();
    const created = await gql(
      a,
      'mutation { createApiToken(input: { name: "host", role: AGENT, userId: "u1", profiles: ["p1"] }) { token } }',
    );
    agentToken = created.data.createApiToken.token;
  });

  it('a sampling request: the answer posted to B reaches the upstream through the call held on A', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    const answeredOn: string[] = [];
    const host = await splitHost(a, b, answeredOn);
    host.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      model: 'host-model',
      content: { type: 'text', text: 'hi from the host' },
    }));
    const result = await host.callTool({ name: 'sample', arguments: {} });
    expect(JSON.parse(textOf(result))).toEqual({
      role: 'assistant',
      model: 'host-model',
      content: { type: 'text', text: 'hi from the host' },
    });
    expect(answeredOn).toEqual([b.origin]);
  });

  it('an elicitation: the answer posted to B reaches the upstream, and nothing is left stored', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    const answeredOn: string[] = [];
    const host = await splitHost(a, b, answeredOn);
    host.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { name: 'Grace', color: 'red' },
    }));
    const result = await host.callTool({ name: 'elicit', arguments: {} });
    expect(JSON.parse(textOf(result))).toEqual({
      action: 'accept',
      content: { name: 'Grace', color: 'red' },
    });
    expect(answeredOn).toEqual([b.origin]);
    expect(await db`select request_id from mcp_host_answers`).toEqual([]);
  });
});
