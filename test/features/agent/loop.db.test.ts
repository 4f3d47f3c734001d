import { describe, expect } from 'vitest';
import { wireRequest } from '../../../src/features/models/index.js';
import type { ProviderKind } from '../../../src/model/providers/types.js';
import {
  fakeConnection,
  loopEvents,
  PROMPT,
  startLoop,
  stoppedLoop,
  agentTest as test,
} from '../../support/agent-loop.js';
import { answer, conversations, type FakeTurn, type RecordedRequest } from '../../support/fake-provider.js';
import { admin, agent, approver, waitFor } from '../../support/lifecycle.js';
import { allowWorkspace } from '../../support/workspace.js';

const formats: ProviderKind[] = ['OPENAI_CHAT', 'OPENAI_RESPONSES', 'ANTHROPIC', 'GEMINI'];

const usage = { input: 100, output: 20, reasoning: 5 };
const read: FakeTurn = {
  text: 'Reading chapter 3.',
  calls: [{ id: 'call_read', name: 'workspace_read_file', args: { path: 'inputs/chapter3.md' } }],
  usage,
};
const write: FakeTurn = {
  calls: [
    {
      id: 'call_write',
      name: 'workspace_write_file',
      args: { path: 'output/summary.md', content: 'It rains all chapter.', mode: 'create' },
    },
  ],
  usage,
};
const finish: FakeTurn = {
  text: 'Done.',
  calls: [{ id: 'call_finish', name: 'workspace_finish', args: { summary: 'Summarised chapter 3.' } }],
  usage,
};

describe.each(formats)('%s: the server drives the loop', (format) => {
  test('three rounds (a read, a write approved by a person, finish), each request exactly what modelRequest gives for the state it was sent in', async ({
    services,
    gql,
    fakeProvider,
  }) => {
    await allowWorkspace(services);
    await services.policy.set(
      { layer: 'PROFILE', scopeId: 'p1', toolPattern: 'workspace.write_file', effect: 'ASK' },
      admin,
    );
    const put = await gql(
      'mutation { putWorkspaceInputs(workspaceId: "ws-1", ownerUserId: "u1", files: [{ path: "inputs/chapter3.md", text: "It rained." }]) { checkpoint { number } } }',
    );
    expect(put.errors).toBeUndefined();
    const connection = await fakeConnection(services, fakeProvider, format);
    let started: Promise<{ runId: string }> | null = null;
    const expected: string[] = [];
    // Asked while the request is in flight: nothing changes on the server until it is answered.
    const replyAfterModelRequest = (turn: FakeTurn) => async (_request: RecordedRequest) => {
      const { runId } = await started!;
      const { body } = await services.models.modelRequest(
        { runId, provider: format, presetName: 'default' },
        agent,
      );
      expected.push(wireRequest(connection, body, true).body);
      return answer(turn);
    };
    fakeProvider.script(
      replyAfterModelRequest(read),
      replyAfterModelRequest(write),
      replyAfterModelRequest(finish),
    );

    started = startLoop(services);
    const { runId } = await started;
    const held = await waitFor(async () => {
      const [call] = await services.calls.page({
        runId,
        status: 'AWAITING_APPROVAL',
        limit: 1,
        inverted: false,
      });
      return call;
    });
    expect(held.name).toBe('workspace.write_file');
    await services.calls.approve(held.id, { argumentsHash: held.argumentsHash }, approver);
    const job = await stoppedLoop(services, runId);

    expect(fakeProvider.requests.map((r) => r.body)).toEqual(expected);
    expect(expected).toHaveLength(3);
    expect(fakeProvider.requests.every((r) => r.stream)).toBe(true);
    expect(expected[0]).toContain(PROMPT);
    expect([job.stopReason, job.round, job.inputTokens, job.outputTokens]).toEqual(['finished', 3, 300, 60]);
    expect((await services.runs.get(runId))!.status).toBe('COMPLETED');
    expect((await services.models.turns(runId)).map((t) => t.index)).toEqual([0, 1, 2]);
    const calls = await services.calls.page({ runId, limit: 10, inverted: false });
    expect(calls.map((c) => [c.name, c.status])).toEqual([
      ['workspace.read_file', 'COMPLETED'],
      ['workspace.write_file', 'COMPLETED'],
      ['workspace.finish', 'COMPLETED'],
    ]);
    expect((await services.agentRuns.rounds(runId)).map((r) => [r.round, r.calls, r.inputTokens])).toEqual([
      [1, 1, 100],
      [2, 1, 100],
      [3, 1, 100],
    ]);
    expect(await loopEvents(services, runId)).toEqual([
      'run_started',
      'agent_run_started',
      'agent_round_finished',
      'agent_round_finished',
      // The round is recorded with its turn; workspace.finish then ran (and completed the run) as its call was requested.
      'agent_round_finished',
      'run_completed',
      'agent_run_stopped',
    ]);
  });
});

describe('parallel calls in one turn', () => {
  test('the next request waits until every call of the turn has ended, and carries each result under its call id', async ({
    services,
    fakeProvider,
  }) => {
    await allowWorkspace(services);
    await services.policy.set(
      { layer: 'PROFILE', scopeId: 'p1', toolPattern: 'workspace.write_file', effect: 'ASK' },
      admin,
    );
    await fakeConnection(services, fakeProvider, 'OPENAI_CHAT');
    fakeProvider.script(
      ...conversations.parallelCalls([
        { id: 'call_list', name: 'workspace_list_files', args: {} },
        {
          id: 'call_write',
          name: 'workspace_write_file',
          args: { path: 'output/notes.md', content: 'Notes.', mode: 'create' },
        },
      ]),
    );

    const { runId } = await startLoop(services);
    const held = await waitFor(async () => {
      const [call] = await services.calls.page({
        runId,
        status: 'AWAITING_APPROVAL',
        limit: 1,
        inverted: false,
      });
      return call;
    });
    const listed = await waitFor(async () => {
      const [call] = await services.calls.page({ runId, status: 'COMPLETED', limit: 1, inverted: false });
      return call;
    });
    expect([listed.name, fakeProvider.requests.length]).toEqual(['workspace.list_files', 1]);

    await services.calls.approve(held.id, { argumentsHash: held.argumentsHash }, approver);
    const job = await stoppedLoop(services, runId);

    expect([job.stopReason, job.round, fakeProvider.requests.length]).toEqual(['no_calls', 2, 2]);
    const second = JSON.parse(fakeProvider.requests[1]!.body) as {
      messages: Array<{ role: string; tool_call_id?: string }>;
    };
    expect(second.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual([
      'call_list',
      'call_write',
    ]);
    expect((await services.agentRuns.rounds(runId)).map((r) => [r.round, r.calls])).toEqual([
      [1, 2],
      [2, 0],
    ]);
  });
});
