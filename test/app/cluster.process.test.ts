import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { testPostgresUrl, withDatabase } from '../support/env.js';
import { waitFor } from '../support/lifecycle.js';
import { freshDatabase } from '../support/process-database.js';
import { graphqlOver, type ServerProcess, startServer } from '../support/server-process.js';

/** Several real server processes on one real Postgres: what PGlite (one process) cannot show. */
const ADMIN = 'cluster-admin-token-0123456789';
const dbName = `ats_cluster_${process.pid}`;
const url = withDatabase(testPostgresUrl, dbName);
const scratch = mkdtempSync(join(tmpdir(), 'ats-cluster-'));
const admin = postgres(testPostgresUrl, { max: 1, onnotice: () => {} });
const servers: ServerProcess[] = [];
let postgresDown = '';

const testServer = ['node_modules/.bin/tsx', 'test/support/test-server.ts'];
async function start(extra: Record<string, string> = {}) {
  const server = await startServer(
    { DATABASE_URL: url, ADMIN_TOKEN: ADMIN, LEASE_MS: '3000', ...extra },
    testServer,
  );
  servers.push(server);
  return server;
}

const gql = (server: ServerProcess, query: string, variables?: Record<string, unknown>) =>
  graphqlOver(server.url, ADMIN, query, variables);

async function eventsOf(server: ServerProcess, filter: { runId?: string; callId?: string }) {
  const res = await gql(
    server,
    'query($r: ID, $c: ID) { journal(runId: $r, callId: $c, first: 1000) { edges { node { seq type callId } } } }',
    {
      r: filter.runId,
      c: filter.callId,
    },
  );
  return res.data.journal.edges.map((e: { node: { seq: string; type: string; callId: string } }) => e.node);
}

// Server processes on a shared machine answer slowly: wait longer and poll less often.
const until = <T>(probe: () => Promise<T | false | null | undefined>, ms = 30_000) => waitFor(probe, ms, 100);

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
  if (process.env.ATS_DEBUG_OUTPUT) {
    writeFileSync(process.env.ATS_DEBUG_OUTPUT, servers.map((s) => s.output()).join('\n=====\n'));
  }
  if (!postgresDown) await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end({ timeout: 5 });
  rmSync(scratch, { recursive: true, force: true });
});

describe('two server processes on one Postgres', () => {
  let a: ServerProcess;
  let b: ServerProcess;

  it('both start on the same fresh database (migrations under an advisory lock)', async ({ skip }) => {
    if (postgresDown) skip(postgresDown);
    [a, b] = await Promise.all([start(), start()]);
    await gql(
      a,
      'mutation { setPolicyRule(input: { layer: PROFILE, scopeId: "p1", toolPattern: "test.*", effect: ALLOW }) { id } }',
    );
    await gql(
      a,
      'mutation { setPolicyRule(input: { layer: PROFILE, scopeId: "p1", toolPattern: "test.side_effect", effect: ASK }) { id } }',
    );
    expect((await gql(b, '{ me { role } }')).data).toEqual({ me: { role: 'ADMIN' } });
  });

  it('a graphql-ws subscriber on one process sees events caused on the other, in order', async ({ skip }) => {
    if (postgresDown) skip(postgresDown);
    const runId = await newRun(b);
    const client = createClient({
      url: a.url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${ADMIN}` },
    });
    const received: Array<{ seq: string; type: string }> = [];
    const done = new Promise<void>((resolve, reject) => {
      client.subscribe(
        { query: `subscription { journalEvents(runId: "${runId}", afterSeq: "0") { seq type } }` },
        {
          next: (value) => {
            received.push((value.data as { journalEvents: { seq: string; type: string } }).journalEvents);
            if (received.length === 4) resolve();
          },
          error: reject,
          complete: () => {},
        },
      );
    });
    await new Promise((r) => setTimeout(r, 300));
    await gql(b, `mutation { requestToolCall(input: { runId: "${runId}", name: "test.noop" }) { status } }`);
    await done;
    await client.dispose();
    expect(received.map((e) => e.type)).toEqual([
      'RUN_STARTED',
      'TOOL_CALL_REQUESTED',
      'TOOL_CALL_STARTED',
      'TOOL_CALL_COMPLETED',
    ]);
  });

  it('an SSE subscriber on one process sees a call enter the approval queue on the other', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    const runId = await newRun(b);
    const controller = new AbortController();
    const response = await fetch(a.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        authorization: `Bearer ${ADMIN}`,
      },
      body: JSON.stringify({ query: 'subscription { approvalQueue { id status name } }' }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const file = join(scratch, 'sse.txt');
    const requested = await gql(
      b,
      `mutation { requestToolCall(input: { runId: "${runId}", name: "test.side_effect", arguments: { file: "${file}", marker: "sse" } }) { id } }`,
    );
    let text = '';
    while (!text.includes(requested.data.requestToolCall.id))
      text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(text).toContain('"status":"AWAITING_APPROVAL"');
  });

  it('approved calls decided on both processes are each dispatched exactly once', async ({ skip }) => {
    if (postgresDown) skip(postgresDown);
    const file = join(scratch, 'once.txt');
    const runId = await newRun(a);
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const res = await gql(
        i % 2 ? a : b,
        `mutation { requestToolCall(input: { runId: "${runId}", name: "test.side_effect", arguments: { file: "${file}", marker: "m${i}" } }) { id status } }`,
      );
      expect(res.data.requestToolCall.status).toBe('AWAITING_APPROVAL');
      ids.push(res.data.requestToolCall.id);
    }
    await Promise.all(
      ids.map((id, i) => gql(i % 2 ? b : a, `mutation { approveToolCall(id: "${id}") { status } }`)),
    );
    await until(async () => {
      const res = await gql(
        a,
        `{ run(id: "${runId}") { toolCalls(first: 100) { edges { node { status } } } } }`,
      );
      return res.data.run.toolCalls.edges.every(
        (e: { node: { status: string } }) => e.node.status === 'COMPLETED',
      );
    });
    const lines = readFileSync(file, 'utf8').trim().split('\n').sort();
    expect(lines).toEqual(ids.map((_, i) => `m${i}`).sort());
    const started = (await eventsOf(a, { runId })).filter(
      (e: { type: string }) => e.type === 'TOOL_CALL_STARTED',
    );
    expect(started).toHaveLength(20);
  });
});

describe('a server killed with SIGKILL', () => {
  it('recovers every call after restart: interrupted, re-run when idempotent, pending approvals kept; nothing lost or doubled', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    const victim = await start();
    await gql(
      victim,
      'mutation { setPolicyRule(input: { layer: PROFILE, scopeId: "p1", toolPattern: "test.*", effect: ALLOW }) { id } }',
    );
    await gql(
      victim,
      'mutation { setPolicyRule(input: { layer: PROFILE, scopeId: "p1", toolPattern: "test.side_effect", effect: ASK }) { id } }',
    );
    const file = join(scratch, 'kill.txt');
    const [r1, r2, r3] = [await newRun(victim), await newRun(victim), await newRun(victim)];
    const request = (runId: string, name: string, marker: string, ms: number) =>
      gql(
        victim,
        `mutation { requestToolCall(input: { runId: "${runId}", name: "${name}", arguments: { file: "${file}", marker: "${marker}", ms: ${ms} } }) { id status } }`,
      );
    const pending = await request(r3, 'test.side_effect', 'approval', 0);
    const pendingId = pending.data.requestToolCall.id as string;
    // The policy makes test.side_effect need approval; approve one so it starts and hangs.
    const slow = await request(r1, 'test.side_effect', 'once', 0);
    const slowId = slow.data.requestToolCall.id as string;
    void request(r2, 'test.idempotent_slow', 'again', 60_000).catch(() => null);
    await gql(victim, `mutation { approveToolCall(id: "${slowId}") { status } }`);
    // test.side_effect with ms 0 finishes at once; start a long one instead for the interruption.
    const hang = await request(r1, 'test.side_effect', 'hang', 60_000);
    expect(hang.errors).toBeUndefined();
    const hangId = hang.data.requestToolCall.id as string;
    void gql(victim, `mutation { approveToolCall(id: "${hangId}") { status } }`).catch(() => null);
    // The tools write the file when they start, after the approvals' answers: it may not exist yet.
    await until(async () => {
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
      return text.includes('hang') && text.includes('again');
    });
    await victim.kill();

    const survivor = await start();
    const hangCall = await until(async () => {
      const res = await gql(
        survivor,
        `{ toolCall(id: "${hangId}") { status error { kind code } run { status } } }`,
      );
      return res.data.toolCall.status === 'FAILED' && res.data.toolCall;
    });
    expect(hangCall).toEqual({
      status: 'FAILED',
      error: { kind: 'SYSTEM_FAILURE', code: 'interrupted' },
      run: { status: 'FAILED' },
    });

    const events2 = await until(async () => {
      const ev = await eventsOf(survivor, { runId: r2 });
      return ev.some((e: { type: string }) => e.type === 'TOOL_CALL_REQUEUED') && ev;
    });
    expect(events2.map((e: { type: string }) => e.type).slice(0, 5)).toEqual([
      'RUN_STARTED',
      'TOOL_CALL_REQUESTED',
      'TOOL_CALL_STARTED',
      'TOOL_CALL_REQUEUED',
      'TOOL_CALL_STARTED',
    ]);

    const still = await gql(survivor, `{ toolCall(id: "${pendingId}") { status } }`);
    expect(still.data.toolCall.status).toBe('AWAITING_APPROVAL');
    await gql(survivor, `mutation { approveToolCall(id: "${pendingId}") { status } }`);
    await until(
      async () =>
        (await gql(survivor, `{ toolCall(id: "${pendingId}") { status } }`)).data.toolCall.status ===
        'COMPLETED',
    );

    const markers = readFileSync(file, 'utf8').trim().split('\n');
    expect(markers.filter((m) => m === 'hang')).toHaveLength(1);
    expect(markers.filter((m) => m === 'once')).toHaveLength(1);
    expect(markers.filter((m) => m === 'approval')).toHaveLength(1);

    const all = await eventsOf(survivor, {});
    const seqs: bigint[] = all.map((e: { seq: string }) => BigInt(e.seq));
    expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => (a < b ? -1 : 1)));
    const requestedPerCall = new Map<string, number>();
    for (const e of all.filter((x: { type: string }) => x.type === 'TOOL_CALL_REQUESTED')) {
      requestedPerCall.set(e.callId, (requestedPerCall.get(e.callId) ?? 0) + 1);
    }
    expect([...requestedPerCall.values()].every((n) => n === 1)).toBe(true);
  });
});
