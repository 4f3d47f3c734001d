import { describe, expect } from 'vitest';
import { runs } from '../../../src/calls/tables.js';
import { agentJobs } from '../../../src/features/agent/tables.js';
import type { Yoga } from '../../../src/graphql/yoga.js';
import { fakeConnection, PROMPT, agentTest as test } from '../../support/agent-loop.js';
import { answer } from '../../support/fake-provider.js';
import { waitFor } from '../../support/lifecycle.js';
import { allowWorkspace } from '../../support/workspace.js';

const START = `mutation($input: StartAgentRunInput!) {
  startAgentRun(input: $input) { runId status connection presetName prompt maxRounds maxTokens }
}`;
const AGENT_RUN = `query($id: ID!) {
  agentRun(runId: $id) {
    status phase round stopReason usage { inputTokens outputTokens reasoningTokens }
    rounds { round calls attempts usage { inputTokens outputTokens } }
    run { status }
  }
}`;

/** Reads a subscription's SSE answer until `until` holds for the events so far. */
async function sseEvents(
  yoga: Yoga,
  token: string,
  query: string,
  variables: Record<string, unknown>,
  until: (events: Array<Record<string, unknown>>) => boolean,
) {
  const response = await yoga.fetch('http://localhost/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ query, variables }),
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: Array<Record<string, unknown>> = [];
  let text = '';
  const ready = { joined: false };
  const done = (async () => {
    while (!until(events)) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
      const blocks = text.split('\n\n');
      text = blocks.pop() ?? '';
      for (const block of blocks) {
        const data = block.split('\n').find((line) => line.startsWith('data: '));
        if (data) events.push(JSON.parse(data.slice(6)) as Record<string, unknown>);
      }
      ready.joined = events.length > 0;
    }
    await reader.cancel();
    return events;
  })();
  return { done, ready };
}

describe('the agent loop over GraphQL', () => {
  test('an agent starts a loop on a new run; agentRun shows its rounds, usage and stop reason', async ({
    services,
    gql,
    tokens,
    fakeProvider,
  }) => {
    await fakeConnection(services, fakeProvider, 'OPENAI_CHAT');
    fakeProvider.script(answer({ text: 'All done.', usage: { input: 30, output: 7, reasoning: 2 } }));
    const started = await gql(
      START,
      { input: { run: { profileId: 'p1' }, connection: 'fake', prompt: PROMPT, maxRounds: 3 } },
      tokens.AGENT,
    );
    expect(started.errors).toBeUndefined();
    expect(started.data!.startAgentRun).toMatchObject({
      status: 'RUNNING',
      connection: 'fake',
      presetName: null,
      prompt: PROMPT,
      maxRounds: 3,
      maxTokens: null,
    });
    const runId = started.data!.startAgentRun.runId as string;
    const shown = await waitFor(async () => {
      const job = (await gql(AGENT_RUN, { id: runId }, tokens.AGENT)).data!.agentRun;
      return job.status === 'STOPPED' && job;
    });
    expect(shown).toEqual({
      status: 'STOPPED',
      phase: 'WAIT',
      round: 1,
      stopReason: 'NO_CALLS',
      usage: { inputTokens: 30, outputTokens: 7, reasoningTokens: 2 },
      rounds: [{ round: 1, calls: 0, attempts: 1, usage: { inputTokens: 30, outputTokens: 7 } }],
      run: { status: 'COMPLETED' },
    });
  });

  test('an unknown presetName is BAD_USER_INPUT naming the built-in presets; no run or loop is made', async ({
    services,
    gql,
    tokens,
    fakeProvider,
  }) => {
    await fakeConnection(services, fakeProvider, 'OPENAI_CHAT');
    const input = { run: { profileId: 'p1' }, connection: 'fake', prompt: PROMPT, presetName: 'nope' };
    const res = await gql(START, { input }, tokens.AGENT);
    expect(res.data).toBeNull();
    expect(res.errors![0]!.message).toMatch(/^no context preset "nope"; built-in presets: default/);
    expect(res.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'presetName' });
    expect(await services.database.db.select().from(agentJobs)).toEqual([]);
    expect(await services.database.db.select().from(runs)).toEqual([]);
  });

  test('modelOutput streams each round’s text deltas and call starts as they arrive', async ({
    services,
    gql,
    yoga,
    tokens,
    fakeProvider,
  }) => {
    await allowWorkspace(services);
    await fakeConnection(services, fakeProvider, 'OPENAI_CHAT');
    fakeProvider.script(
      answer({
        text: 'Hello there.',
        calls: [{ id: 'c1', name: 'workspace_read_file', args: { path: 'inputs/x.md' } }],
      }),
      answer({ text: 'Bye.' }),
    );
    const created = await gql(
      'mutation { createRun(input: { profileId: "p1", workspaceId: "ws-1" }) { id } }',
      {},
      tokens.AGENT,
    );
    const runId = created.data!.createRun.id as string;
    const finished = (events: Array<Record<string, unknown>>) =>
      events.filter((e) => JSON.stringify(e).includes('ROUND_FINISHED')).length === 2;
    const stream = await sseEvents(
      yoga,
      tokens.AGENT,
      'subscription($id: ID!) { modelOutput(runId: $id) { kind round text name providerCallId calls } }',
      { id: runId },
      finished,
    );
    while (!stream.ready.joined) await new Promise((r) => setTimeout(r, 10));
    const started = await gql(START, { input: { runId, connection: 'fake', prompt: PROMPT } }, tokens.AGENT);
    expect(started.errors).toBeUndefined();
    const events = (await stream.done).map(
      (e) => (e.data as { modelOutput: Record<string, unknown> }).modelOutput,
    );
    const blank = { text: null, name: null, providerCallId: null, calls: null };
    expect(events).toEqual([
      { ...blank, kind: 'JOINED', round: 0 },
      { ...blank, kind: 'ROUND_STARTED', round: 1 },
      { ...blank, kind: 'TEXT', round: 1, text: 'Hello ' },
      { ...blank, kind: 'TEXT', round: 1, text: 'there.' },
      { ...blank, kind: 'TOOL_CALL_START', round: 1, name: 'workspace_read_file', providerCallId: 'c1' },
      { ...blank, kind: 'ROUND_FINISHED', round: 1, calls: 1 },
      { ...blank, kind: 'ROUND_STARTED', round: 2 },
      { ...blank, kind: 'TEXT', round: 2, text: 'By' },
      { ...blank, kind: 'TEXT', round: 2, text: 'e.' },
      { ...blank, kind: 'ROUND_FINISHED', round: 2, calls: 0 },
    ]);
  });
});
