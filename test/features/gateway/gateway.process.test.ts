import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPostgresUrl, withDatabase } from '../../support/env.js';
import { within } from '../../support/failover.js';
import { inspect } from '../../support/inspector.js';
import { freshDatabase } from '../../support/process-database.js';
import { graphqlOver, type ServerProcess, startServer } from '../../support/server-process.js';

/**
 * Two real server processes on one Postgres behind the MCP gateway: a call pending on one is
 * picked up by an identical retry on the other, and a process killed while it holds a call loses
 * nothing (the retry after the restart gets the outcome; the tool ran once).
 */
const ADMIN = 'gateway-admin-token-0123456789';
const dbName = `ats_gateway_${process.pid}`;
const url = withDatabase(testPostgresUrl, dbName);
const admin = postgres(testPostgresUrl, { max: 1, onnotice: () => {} });
const db = postgres(url, { max: 1, onnotice: () => {} });
const servers: ServerProcess[] = [];
const clients: Client[] = [];
const testServer = ['node_modules/.bin/tsx', 'test/support/test-server.ts'];
const env = { DATABASE_URL: url, ADMIN_TOKEN: ADMIN, MCP_APPROVAL_HOLD_MS: '1000', LEASE_MS: '3000' };
const APPROVAL = 'agent-tool-system/approval';
const file = join(mkdtempSync(join(tmpdir(), 'gateway-')), 'effects.txt');
let postgresDown = '';
let agentToken = '';

const gql = (server: ServerProcess, query: string, variables?: Record<string, unknown>) =>
  graphqlOver(server.url, ADMIN, query, variables);

async function start(): Promise<ServerProcess> {
  const server = await startServer(env, testServer);
  servers.push(server);
  return server;
}

async function mcp(server: ServerProcess): Promise<Client> {
  const client = new Client({ name: 'process-test-host', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${agentToken}` } },
    }),
  );
  clients.push(client);
  return client;
}

const approve = (server: ServerProcess, id: string) =>
  gql(server, 'mutation($id: ID!) { approveToolCall(id: $id) { status } }', { id });
const awaiting = () =>
  within('a call awaiting approval', 30_000, async () => {
    const rows = await db`select id from tool_calls where status = 'AWAITING_APPROVAL'`;
    return rows.length === 1 ? (rows[0]!.id as string) : null;
  });
/**
 * An identical retry as the pending result asks for, repeated while the answer is still pending:
 * an approved call runs on whichever process dispatches it, and under load that can take longer
 * than one hold (1 s here), which a host bridges by calling again.
 */
async function retriedWhilePending<T>(
  attempt: () => Promise<T>,
  pendingOf: (answer: T) => unknown,
): Promise<T> {
  for (let tries = 1; ; tries += 1) {
    const answer = await attempt();
    const meta = pendingOf(answer) as Record<string, { status?: string }> | undefined;
    if (meta?.[APPROVAL]?.status !== 'pending_approval' || tries >= 30) return answer;
  }
}
const mcpMeta = (answer: { _meta?: unknown }) => answer._meta;
const inspectorMeta = (answer: { json: unknown }) => (answer.json as { _meta?: unknown } | null)?._meta;
/** The same call through the MCP inspector's CLI, a client of its own (one process per request). */
const inspectCall = (server: ServerProcess, args: Record<string, string>, signal?: AbortSignal) =>
  inspect(
    `${server.origin}/mcp`,
    { token: agentToken, method: 'tools/call', toolName: 'test__side_effect', toolArgs: args },
    signal,
  );
const linesOf = (marker: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line === marker).length;

beforeAll(async () => {
  postgresDown = await freshDatabase(admin, dbName);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await Promise.all(servers.map((s) => s.kill()));
  await db.end({ timeout: 5 });
  if (!postgresDown) await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end({ timeout: 5 });
});

describe('the MCP gateway across processes', () => {
  let a: ServerProcess;
  let b: ServerProcess;

  it('two servers on one database; test.side_effect asks a person', async ({ skip }) => {
    if (postgresDown) skip(postgresDown);
    a = await start();
    b = await start();
    for (const rule of [
      '{ layer: PROFILE, scopeId: "p1", toolPattern: "test.*", effect: ALLOW }',
      '{ layer: USER, scopeId: "u1", toolPattern: "test.side_effect", effect: ASK }',
    ])
      expect((await gql(a, `mutation { setPolicyRule(input: ${rule}) { id } }`)).errors).toBeUndefined();
    const created = await gql(
      a,
      'mutation { createApiToken(input: { name: "host", role: AGENT, userId: "u1", profiles: ["p1"] }) { token } }',
    );
    agentToken = created.data.createApiToken.token;
  });

  it('pending on A, approved, an identical retry on B gets the outcome', async ({ skip }) => {
    if (postgresDown) skip(postgresDown);
    const args = { file, marker: 'retry-on-b' };
    const pending = await (await mcp(a)).callTool({ name: 'test__side_effect', arguments: args });
    const { callId } = (pending._meta as Record<string, { callId: string }>)[APPROVAL]!;
    expect((await approve(b, callId)).errors).toBeUndefined();
    const host = await mcp(b);
    const outcome = await retriedWhilePending(
      () => host.callTool({ name: 'test__side_effect', arguments: args }),
      mcpMeta,
    );
    expect(outcome.content).toEqual([{ type: 'text', text: 'written' }]);
    expect(linesOf('retry-on-b')).toBe(1);
  });

  it('kill -9 of the process holding a call: the retry after its restart gets the outcome, the tool ran once', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    const args = { file, marker: 'survives-kill' };
    // A host whose server died gives up on the request: nothing would ever answer it.
    const host = new AbortController();
    const held = (await mcp(a))
      .callTool({ name: 'test__side_effect', arguments: args }, undefined, { signal: host.signal })
      .catch(() => null);
    const callId = await awaiting();
    await a.kill();
    host.abort();
    await held;
    expect((await approve(b, callId)).errors).toBeUndefined();
    a = await start();
    const retrying = await mcp(a);
    const outcome = await retriedWhilePending(
      () => retrying.callTool({ name: 'test__side_effect', arguments: args }),
      mcpMeta,
    );
    expect(outcome.content).toEqual([{ type: 'text', text: 'written' }]);
    expect(linesOf('survives-kill')).toBe(1);
  });

  it('through the inspector CLI: pending on A, approved, an identical retry on B gets the outcome', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    const args = { file, marker: 'inspector-retry-on-b' };
    const pending = await inspectCall(a, args);
    const { callId } = (pending.json as { _meta: Record<string, { callId: string }> })._meta[APPROVAL]!;
    expect((await approve(b, callId)).errors).toBeUndefined();
    const outcome = await retriedWhilePending(() => inspectCall(b, args), inspectorMeta);
    expect(outcome.json).toEqual({ content: [{ type: 'text', text: 'written' }] });
    expect(linesOf('inspector-retry-on-b')).toBe(1);
  });

  it('through the inspector CLI: kill -9 of the process holding the call, the retry after its restart gets the outcome once', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    const args = { file, marker: 'inspector-survives-kill' };
    const host = new AbortController();
    const held = inspectCall(a, args, host.signal).catch(() => null);
    const callId = await awaiting();
    await a.kill();
    host.abort();
    await held;
    expect((await approve(b, callId)).errors).toBeUndefined();
    a = await start();
    const outcome = await retriedWhilePending(() => inspectCall(a, args), inspectorMeta);
    expect(outcome.json).toEqual({ content: [{ type: 'text', text: 'written' }] });
    expect(linesOf('inspector-survives-kill')).toBe(1);
  });
});
