import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPostgresUrl, withDatabase } from '../support/env.js';
import { freshDatabase } from '../support/process-database.js';
import { graphqlOver, type ServerProcess, startServer } from '../support/server-process.js';

/**
 * Two real server processes on one Postgres, each keeping policy rules, the registry and token
 * rows in memory: a change made through one is obeyed by the very next request to the other.
 */
const ADMIN = 'caches-admin-token-0123456789';
const dbName = `ats_caches_${process.pid}`;
const url = withDatabase(testPostgresUrl, dbName);
const admin = postgres(testPostgresUrl, { max: 1, onnotice: () => {} });
const servers: ServerProcess[] = [];
let postgresDown = '';

const testServer = ['node_modules/.bin/tsx', 'test/support/test-server.ts'];
const gql = (server: ServerProcess, query: string, variables?: Record<string, unknown>, token = ADMIN) =>
  graphqlOver(server.url, token, query, variables);

const REQUEST = `mutation($r: ID!, $n: String!, $a: JSON) { requestToolCall(input: { runId: $r, name: $n, arguments: $a }) {
  status policyReason error { code } } }`;

async function newRun(server: ServerProcess) {
  return (await gql(server, 'mutation { createRun(input: { profileId: "p1" }) { id } }')).data.createRun
    .id as string;
}

beforeAll(async () => {
  postgresDown = await freshDatabase(admin, dbName);
  if (postgresDown) return;
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.kill()));
  if (!postgresDown) await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end({ timeout: 5 });
});

describe('caches across two server processes', () => {
  let a: ServerProcess;
  let b: ServerProcess;

  it('both start on one database and allow the test tools on profile p1', async ({ skip }) => {
    if (postgresDown) skip(postgresDown);
    const env = { DATABASE_URL: url, ADMIN_TOKEN: ADMIN, LEASE_MS: '3000' };
    a = await startServer(env, testServer);
    servers.push(a);
    b = await startServer(env, testServer);
    servers.push(b);
    const allowed = await gql(
      a,
      'mutation { setPolicyRule(input: { layer: PROFILE, scopeId: "p1", toolPattern: "test.*", effect: ALLOW }) { id } }',
    );
    expect(allowed.errors).toBeUndefined();
  });

  it('a DENY rule set on A is obeyed by the very next call on B', async ({ skip }) => {
    if (postgresDown) skip(postgresDown);
    const runId = await newRun(b);
    const before = await gql(b, REQUEST, { r: runId, n: 'test.noop' });
    expect(before.data.requestToolCall.error).toBeNull();
    const denied = await gql(
      a,
      'mutation { setPolicyRule(input: { layer: PROFILE, scopeId: "p1", toolPattern: "test.noop", effect: DENY, reason: "not on B either" }) { id } }',
    );
    const ruleId = denied.data.setPolicyRule.id as string;
    const after = await gql(b, REQUEST, { r: runId, n: 'test.noop' });
    expect(after.data.requestToolCall).toEqual({
      status: 'FAILED',
      policyReason: `denied by PROFILE rule ${ruleId} (DENY "test.noop"): not on B either`,
      error: { code: 'tool_not_available' },
    });
  });

  it('a token revoked on A is refused by B at its next request', async ({ skip }) => {
    if (postgresDown) skip(postgresDown);
    const created = await gql(
      a,
      'mutation { createApiToken(input: { name: "roaming", role: VIEWER, users: ["u1"] }) { token apiToken { id } } }',
    );
    const { token, apiToken } = created.data.createApiToken;
    expect((await gql(b, '{ me { name } }', {}, token)).data).toEqual({ me: { name: 'roaming' } });
    await gql(a, 'mutation($id: ID!) { revokeApiToken(id: $id) }', { id: apiToken.id });
    const refused = await gql(b, '{ me { name } }', {}, token);
    expect(refused.errors?.map((e: { message: string }) => e.message)).toEqual([
      'authentication failed: this token was revoked',
    ]);
  });

  it('a tool disabled on A is seen disabled by the next call on B', async ({ skip }) => {
    if (postgresDown) skip(postgresDown);
    const runId = await newRun(b);
    const before = await gql(b, REQUEST, { r: runId, n: 'test.echo', a: { text: 'hi' } });
    expect(before.data.requestToolCall.error).toBeNull();
    await gql(a, 'mutation { setToolEnabled(name: "test.echo", enabled: false) { enabled } }');
    const after = await gql(b, REQUEST, { r: runId, n: 'test.echo', a: { text: 'hi' } });
    expect(after.data.requestToolCall).toEqual({
      status: 'FAILED',
      policyReason: 'tool is disabled',
      error: { code: 'tool_not_available' },
    });
  });
  it('an ALWAYS grant approved on A lets the next call of its tool on B run without asking', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    const asked = await gql(b, REQUEST, { r: await newRun(b), n: 'test.dangerous' });
    expect(asked.data.requestToolCall.status).toBe('AWAITING_APPROVAL');
    const pending = await gql(a, '{ pendingApprovals(first: 1) { edges { node { id } } } }');
    const id = pending.data.pendingApprovals.edges[0].node.id as string;
    const approved = await gql(
      a,
      'mutation($id: ID!) { approveToolCall(id: $id, scope: ALWAYS, grantProfileId: "p1") { status } }',
      { id },
    );
    expect(approved.errors).toBeUndefined();
    const next = await gql(b, REQUEST, { r: await newRun(b), n: 'test.dangerous' });
    expect(next.data.requestToolCall).toEqual({
      status: 'COMPLETED',
      policyReason: expect.stringMatching(/^allowed by PROFILE rule /),
      error: null,
    });
  });
});
