import { describe, expect } from 'vitest';
import { echoAsksTest } from '../support/echo-asks.js';
import { admin, waitFor } from '../support/lifecycle.js';
import type { Json } from '../support/model-loop.js';

const RESULTS = `query($runId: ID!, $provider: Provider!, $callIds: [ID!]!) {
  toolResultMessages(runId: $runId, provider: $provider, callIds: $callIds)
}`;
const EDIT = `mutation($id: ID!, $editedArguments: JSON) {
  approveToolCall(id: $id, editedArguments: $editedArguments) { status replacedBy { id } }
}`;

const ANSWER =
  'Arguments edited by approver:test-approver before running: {"text":"drafts/b.md"}\ndrafts/b.md';

const test = echoAsksTest;

const openAiTurn = (id: string, callId: string, text: string) => ({
  id,
  object: 'chat.completion',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: callId,
            type: 'function',
            function: { name: 'test_echo', arguments: JSON.stringify({ text }) },
          },
        ],
      },
      finish_reason: 'tool_calls',
    },
  ],
});

/** Each wire format's successful answer to one call. */
const answerIn: Record<string, (id: string, text: string) => Json[]> = {
  OPENAI_CHAT: (id, text) => [{ role: 'tool', tool_call_id: id, content: text }],
  OPENAI_RESPONSES: (id, text) => [{ type: 'function_call_output', call_id: id, output: text }],
  ANTHROPIC: (id, text) => [
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text, is_error: false }] },
  ],
  GEMINI: (_id, text) => [
    { role: 'user', parts: [{ functionResponse: { name: 'test_echo', response: { output: text } } }] },
  ],
};

describe("the model's answer to an edited call", () => {
  test.for(Object.keys(answerIn))(
    '%s: one answer under the original call id, the edited call’s result naming the arguments that ran',
    async (provider, { services, gql, tokens, loopRun: { loop, runId } }) => {
      const turn = await loop.submit(runId, 'OPENAI_CHAT', openAiTurn('chatcmpl-1', 'call_a', 'drafts/a.md'));
      const original = turn.toolCalls[0];
      const edit = await gql(
        EDIT,
        { id: original.id, editedArguments: { text: 'drafts/b.md' } },
        tokens.APPROVER,
      );
      expect(edit.errors).toBeUndefined();
      const replacement = edit.data!.approveToolCall.replacedBy.id;
      await waitFor(async () => (await services.calls.get(replacement))?.status === 'COMPLETED');

      for (const callIds of [[original.id], [replacement], [original.id, replacement]]) {
        const res = await gql(RESULTS, { runId, provider, callIds }, tokens.AGENT);
        expect(res.errors).toBeUndefined();
        expect(res.data!.toolResultMessages).toEqual(answerIn[provider]!('call_a', ANSWER));
      }
    },
  );

  test('the next model request answers the original call id with the edited call’s result', async ({
    services,
    gql,
    tokens,
    loopRun: { loop, runId },
  }) => {
    const turn = await loop.submit(runId, 'OPENAI_CHAT', openAiTurn('chatcmpl-1', 'call_a', 'drafts/a.md'));
    const edit = await gql(
      EDIT,
      { id: turn.toolCalls[0].id, editedArguments: { text: 'drafts/b.md' } },
      tokens.APPROVER,
    );
    const replacement = edit.data!.approveToolCall.replacedBy.id;
    await waitFor(async () => (await services.calls.get(replacement))?.status === 'COMPLETED');
    const next = await loop.request(runId, 'OPENAI_CHAT', {
      system: 'You are a careful agent.',
      components: [{ kind: 'TOOL_RESULTS', tokenBudget: 2000, form: 'RAW' }],
    });
    expect(next.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_a', content: ANSWER });
  });

  test('while the edited call still waits for a second approval, the turn is pending', async ({
    services,
    gql,
    tokens,
    loopRun: { loop, runId },
  }) => {
    await services.policy.set(
      { layer: 'PROFILE', scopeId: 'p1', toolPattern: 'test.echo', effect: 'ASK', budget: { approvals: 2 } },
      admin,
    );
    const turn = await loop.submit(runId, 'OPENAI_CHAT', openAiTurn('chatcmpl-1', 'call_a', 'drafts/a.md'));
    const edit = await gql(
      EDIT,
      { id: turn.toolCalls[0].id, editedArguments: { text: 'drafts/b.md' } },
      tokens.APPROVER,
    );
    expect(edit.data!.approveToolCall.status).toBe('EDITED');
    const replacement = edit.data!.approveToolCall.replacedBy.id;
    expect((await services.calls.get(replacement))!.status).toBe('AWAITING_APPROVAL');
    const res = await gql(
      RESULTS,
      { runId, provider: 'OPENAI_CHAT', callIds: [turn.toolCalls[0].id] },
      tokens.AGENT,
    );
    expect(res.errors![0]!.extensions).toMatchObject({ code: 'CONFLICT', pending: [replacement] });
  });
});
