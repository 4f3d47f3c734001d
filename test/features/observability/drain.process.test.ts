import { once } from 'node:events';
import { createClient } from 'graphql-ws';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { testPostgresUrl, withDatabase } from '../../support/env.js';
import { waitFor } from '../../support/lifecycle.js';
import { freshDatabase } from '../../support/process-database.js';
import { graphqlOver, type ServerProcess, startServer } from '../../support/server-process.js';

/** A real server process told to stop (SIGTERM) while a subscription is open and calls are leased. */
const ADMIN = 'drain-admin-token-0123456789';
const dbName = `ats_drain_${process.pid}`;
const url = withDatabase(testPostgresUrl, dbName);
const admin = postgres(testPostgresUrl, { max: 1, onnotice: () => {} });
const db = postgres(url, { max: 1, onnotice: () => {} });
let postgresDown = '';
let server: ServerProcess | undefined;

beforeAll(async () => {
  postgresDown = await freshDatabase(admin, dbName);
  if (postgresDown) return;
});

afterAll(async () => {
  await server?.kill();
  await db.end({ timeout: 5 });
  if (!postgresDown) await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end({ timeout: 5 });
});

describe('SIGTERM drains', () => {
  const gql = (query: string) => graphqlOver(server!.url, ADMIN, query);

  it('refuses new requests, closes subscriptions saying why, lets a short call finish, releases the lease of a long one, and exits 0', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    server = await startServer(
      // A lease that outlives the test: only a release can make it expire in time.
      { DATABASE_URL: url, ADMIN_TOKEN: ADMIN, LEASE_MS: '600000', DRAIN_TIMEOUT_MS: '4000' },
      ['node_modules/.bin/tsx', 'test/support/test-server.ts'],
    );
    await gql(
      'mutation { setPolicyRule(input: { layer: PROFILE, scopeId: "p1", toolPattern: "test.*", effect: ALLOW }) { id } }',
    );
    const runId = (await gql('mutation { createRun(input: { profileId: "p1", userId: "u1" }) { id } }')).data
      .createRun.id as string;

    let closed: { code: number; reason: string } | null = null;
    const client = createClient({
      url: server.url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${ADMIN}` },
      retryAttempts: 0,
      on: {
        closed: (event) => {
          const { code, reason } = event as { code: number; reason: string };
          closed = { code, reason };
        },
      },
    });
    client.subscribe(
      { query: `subscription { journalEvents(runId: "${runId}") { seq } }` },
      { next() {}, error() {}, complete() {} },
    );
    const request = (ms: number) =>
      gql(
        `mutation { requestToolCall(input: { runId: "${runId}", name: "test.sleep", arguments: { ms: ${ms} } }) { id } }`,
      ).catch(() => null);
    void request(1500);
    void request(120_000);
    const started = () =>
      db<{ ms: number; status: string; lease_owner: string | null; expired: boolean }[]>`
        select (arguments->>'ms')::int as ms, status, lease_owner, lease_expires_at <= now() as expired
        from tool_calls where run_id = ${runId} order by ms`;
    await waitFor(
      async () => {
        const calls = await started();
        return calls.length === 2 && calls.every((c) => c.status === 'STARTED') && calls;
      },
      30_000,
      100,
    );

    const exited = once(server.child, 'exit');
    process.kill(-server.child.pid!, 'SIGTERM');
    const refused = await waitFor(
      async () => {
        const response = await fetch(`${server!.origin}/health`).catch(() => null);
        return response?.status === 503 && { status: response.status, body: await response.json() };
      },
      10_000,
      20,
    );
    expect(refused).toEqual({ status: 503, body: { status: 'draining' } });
    const [code] = await exited;

    expect(code).toBe(0);
    expect(closed).toEqual({ code: 1001, reason: 'server shutting down' });
    const calls = await started();
    expect(calls.map((c) => [c.ms, c.status])).toEqual([
      [1500, 'COMPLETED'],
      [120_000, 'STARTED'],
    ]);
    expect(calls[1]!.lease_owner).toMatch(/^worker-.+:released$/);
    expect(calls[1]!.expired).toBe(true);
    await client.dispose();
  });
});
