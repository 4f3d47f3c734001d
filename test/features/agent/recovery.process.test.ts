import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPostgresUrl, withDatabase } from '../../support/env.js';
import { answer, FakeProvider } from '../../support/fake-provider.js';
import { waitFor } from '../../support/lifecycle.js';
import { freshDatabase } from '../../support/process-database.js';
import { graphqlOver, type ServerProcess, startServer } from '../../support/server-process.js';

/** The agent loop on real server processes over one Postgres: one dies with SIGKILL, another goes on. */
const ADMIN = 'agent-recovery-admin-token-0123456789';
const dbName = `ats_agent_recovery_${process.pid}`;
const url = withDatabase(testPostgresUrl, dbName);
const admin = postgres(testPostgresUrl, { max: 1, onnotice: () => {} });
const servers: ServerProcess[] = [];
let provider: FakeProvider;
let postgresDown = '';

const testServer = ['node_modules/.bin/tsx', 'test/support/test-server.ts'];
async function start() {
  const server = await startServer({ DATABASE_URL: url, ADMIN_TOKEN: ADMIN, LEASE_MS: '3000' }, testServer);
  servers.push(server);
  return server;
}

async function gql(server: ServerProcess, query: string, variables?: Record<string, unknown>) {
  const res = await graphqlOver(server.url, ADMIN, query, variables);
  expect(res.errors).toBeUndefined();
  return res.data;
}

const until = <T>(probe: () => Promise<T | false | null | undefined>) => waitFor(probe, 60_000, 100);

const AGENT_RUN = `query($id: ID!) {
  agentRun(runId: $id) { status phase round stopReason }
  modelTurns(runId: $id) { index }
  run(id: $id) { status toolCalls(first: 10) { edges { node { id name status argumentsHash } } } }
}`;

beforeAll(async () => {
  postgresDown = await freshDatabase(admin, dbName);
  if (postgresDown) return;
  provider = await FakeProvider.start();
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.kill()));
  await provider?.close();
  if (!postgresDown) await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end({ timeout: 5 });
});

describe('an agent loop whose process is killed', () => {
  it('paused at an approval, resumes on a second process after the decision: no turn or call twice', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    const first = await start();
    await gql(
      first,
      'mutation { setPolicyRule(input: { layer: PROFILE, scopeId: "p1", toolPattern: "workspace.*", effect: ALLOW }) { id } }',
    );
    await gql(
      first,
      'mutation { setPolicyRule(input: { layer: PROFILE, scopeId: "p1", toolPattern: "workspace.write_file", effect: ASK }) { id } }',
    );
    await gql(
      first,
      'mutation($url: String!) { setModelConnection(input: { name: "fake", wireFormat: ANTHROPIC, baseUrl: $url, model: "fake-model", apiKey: "sk-recovery-SECRET-0123456789" }) { name } }',
      { url: provider.baseUrl },
    );
    provider.script(
      answer({
        text: 'Writing.',
        calls: [
          {
            id: 'w1',
            name: 'workspace_write_file',
            args: { path: 'output/a.md', content: 'a', mode: 'create' },
          },
        ],
      }),
      answer({ text: 'Written.' }),
    );
    const started = await gql(
      first,
      'mutation { startAgentRun(input: { run: { profileId: "p1", workspaceId: "ws-recovery" }, connection: "fake", prompt: "Write a." }) { runId } }',
    );
    const runId = started.startAgentRun.runId as string;
    const paused = await until(async () => {
      const state = await gql(first, AGENT_RUN, { id: runId });
      const call = state.run.toolCalls.edges[0]?.node;
      return state.agentRun.phase === 'WAIT' && call?.status === 'AWAITING_APPROVAL' && call;
    });
    await first.kill();

    const second = await start();
    await gql(
      second,
      'mutation($id: ID!, $hash: String) { approveToolCall(id: $id, argumentsHash: $hash) { id } }',
      {
        id: paused.id,
        hash: paused.argumentsHash,
      },
    );
    const state = await until(async () => {
      const now = await gql(second, AGENT_RUN, { id: runId });
      return now.agentRun.status === 'STOPPED' && now;
    });
    expect(state.agentRun).toEqual({ status: 'STOPPED', phase: 'WAIT', round: 2, stopReason: 'NO_CALLS' });
    expect(state.modelTurns).toEqual([{ index: 0 }, { index: 1 }]);
    expect(state.run.status).toBe('COMPLETED');
    expect(
      state.run.toolCalls.edges.map((e: { node: { name: string; status: string } }) => [
        e.node.name,
        e.node.status,
      ]),
    ).toEqual([['workspace.write_file', 'COMPLETED']]);
    expect(provider.requests).toHaveLength(2);
    // The next test's loop must be driven by its own processes only.
    await second.stop();
  });

  it('killed with a model request in flight, the request is sent again by another process once the lease runs out', async ({
    skip,
  }) => {
    if (postgresDown) skip(postgresDown);
    provider.reset();
    const victim = await start();
    provider.script({ kind: 'hang' }, answer({ text: 'Answered the second time.' }));
    const started = await gql(
      victim,
      'mutation { startAgentRun(input: { run: { profileId: "p1" }, connection: "fake", prompt: "Say something." }) { runId } }',
    );
    const runId = started.startAgentRun.runId as string;
    await until(async () => provider.requests.length === 1);
    await victim.kill();
    const heir = await start();
    const state = await until(async () => {
      const now = await gql(heir, AGENT_RUN, { id: runId });
      return now.agentRun.status === 'STOPPED' && now;
    });
    expect(state.agentRun).toEqual({ status: 'STOPPED', phase: 'WAIT', round: 1, stopReason: 'NO_CALLS' });
    expect(state.modelTurns).toEqual([{ index: 0 }]);
    expect(provider.requests.map((r) => r.body)).toEqual([
      provider.requests[0]!.body,
      provider.requests[0]!.body,
    ]);
  });

  it('every process streams the model output of a loop, whichever drives it', async ({ skip }) => {
    if (postgresDown) skip(postgresDown);
    provider.reset();
    provider.script(answer({ text: 'Hello from the model.' }));
    const [c, d] = [await start(), await start()];
    const created = await gql(c, 'mutation { createRun(input: { profileId: "p1" }) { id } }');
    const runId = created.createRun.id as string;
    const watch = async (server: ServerProcess) => {
      const response = await fetch(server.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          authorization: `Bearer ${ADMIN}`,
        },
        body: JSON.stringify({
          query: `subscription { modelOutput(runId: "${runId}") { kind text } }`,
        }),
      });
      const reader = response.body!.getReader();
      let text = '';
      const joined = (async () => {
        while (!text.includes('JOINED')) text += new TextDecoder().decode((await reader.read()).value);
      })();
      const finished = (async () => {
        await joined;
        while (!text.includes('ROUND_FINISHED'))
          text += new TextDecoder().decode((await reader.read()).value);
        await reader.cancel();
        return [...text.matchAll(/"kind":"TEXT","text":"([^"]*)"/g)].map((m) => m[1]).join('');
      })();
      return { joined, finished };
    };
    const [onC, onD] = [await watch(c), await watch(d)];
    await Promise.all([onC.joined, onD.joined]);
    await gql(
      c,
      `mutation { startAgentRun(input: { runId: "${runId}", connection: "fake", prompt: "Hi." }) { runId } }`,
    );
    expect(await onC.finished).toBe('Hello from the model.');
    expect(await onD.finished).toBe('Hello from the model.');
  });
});
