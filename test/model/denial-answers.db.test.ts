import { sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { echoAsksTest } from '../support/echo-asks.js';
import { eventTypes } from '../support/lifecycle.js';
import type { Json } from '../support/model-loop.js';

const RESULTS = `query($runId: ID!, $provider: Provider!, $callIds: [ID!]!) {
  toolResultMessages(runId: $runId, provider: $provider, callIds: $callIds)
}`;
const DENY = `mutation($id: ID!, $feedback: String) {
  denyToolCall(id: $id, reason: "not there", feedback: $feedback) { status }
}`;

const FEEDBACK = 'Write it under output/drafts/ instead.';
const DENIED = `Denied by approver:test-approver: ${FEEDBACK}`;
const EXPIRED = 'Expired: this tool call did not run. No one decided in time; you may ask again.';

const test = echoAsksTest;

const openAiTurn = (id: string, calls: Array<[string, string]>) => ({
  id,
  object: 'chat.completion',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: calls.map(([callId, text]) => ({
          id: callId,
          type: 'function',
          function: { name: 'test_echo', arguments: JSON.stringify({ text }) },
        })),
      },
      finish_reason: 'tool_calls',
    },
  ],
});

/** Each wire format's answers to the calls, in order, each an error with this text. */
const answersIn: Record<string, (answers: Array<[string, string]>) => Json[]> = {
  OPENAI_CHAT: (answers) => answers.map(([id, text]) => ({ role: 'tool', tool_call_id: id, content: text })),
  OPENAI_RESPONSES: (answers) =>
    answers.map(([id, text]) => ({ type: 'function_call_output', call_id: id, output: text })),
  ANTHROPIC: (answers) => [
    {
      role: 'user',
      content: answers.map(([id, text]) => ({
        type: 'tool_result',
        tool_use_id: id,
        content: text,
        is_error: true,
      })),
    },
  ],
  GEMINI: (answers) => [
    {
      role: 'user',
      parts: answers.map(([, text]) => ({
        functionResponse: { name: 'test_echo', response: { error: text } },
      })),
    },
  ],
};

describe("the model's answer to a denial with feedback and to an expiry", () => {
  test.for(Object.keys(answersIn))(
    '%s: "Denied by <person>: <feedback>" and "No one decided in time", never an expiry worded as a denial',
    async (provider, { services, gql, tokens, loopRun: { loop, runId } }) => {
      const first = await loop.submit(
        runId,
        'OPENAI_CHAT',
        openAiTurn('chatcmpl-1', [
          ['call_a', 'secret/plan.md'],
          ['call_b', 'notes.md'],
        ]),
      );
      const [denied, expired] = first.toolCalls;
      expect(
        (await gql(DENY, { id: denied.id, feedback: FEEDBACK }, tokens.APPROVER)).errors,
      ).toBeUndefined();
      await services.database.db.execute(
        sql`update tool_calls set approval_expires_at = now() - interval '1 second' where id = ${expired.id}`,
      );
      await services.dispatcher.expireApprovals();

      const res = await gql(RESULTS, { runId, provider, callIds: [denied.id, expired.id] }, tokens.AGENT);
      expect(res.errors).toBeUndefined();
      expect(res.data!.toolResultMessages).toEqual(
        answersIn[provider]!([
          ['call_a', DENIED],
          ['call_b', EXPIRED],
        ]),
      );
    },
  );

  test.for(Object.keys(answersIn))(
    '%s: an identical call in a later turn is answered with the same denial, nobody asked again',
    async (provider, { services, gql, tokens, loopRun: { loop, runId } }) => {
      const first = await loop.submit(
        runId,
        'OPENAI_CHAT',
        openAiTurn('chatcmpl-1', [['call_a', 'secret/plan.md']]),
      );
      await gql(DENY, { id: first.toolCalls[0].id, feedback: FEEDBACK }, tokens.APPROVER);
      const second = await loop.submit(
        runId,
        'OPENAI_CHAT',
        openAiTurn('chatcmpl-2', [['call_a2', 'secret/plan.md']]),
      );
      const repeat = second.toolCalls[0];
      expect(repeat.status).toBe('DENIED');
      expect(await eventTypes(services, { callId: repeat.id })).toEqual([
        'tool_call_requested',
        'tool_call_denied',
      ]);
      const res = await gql(RESULTS, { runId, provider, callIds: [repeat.id] }, tokens.AGENT);
      expect(res.data!.toolResultMessages).toEqual(answersIn[provider]!([['call_a2', DENIED]]));
    },
  );

  test('the next model request carries the feedback as the answer to the denied call', async ({
    gql,
    tokens,
    loopRun: { loop, runId },
  }) => {
    const first = await loop.submit(
      runId,
      'OPENAI_CHAT',
      openAiTurn('chatcmpl-1', [['call_a', 'secret/plan.md']]),
    );
    await gql(DENY, { id: first.toolCalls[0].id, feedback: FEEDBACK }, tokens.APPROVER);
    const next = await loop.request(runId, 'OPENAI_CHAT', {
      system: 'You are a careful agent.',
      components: [{ kind: 'TOOL_RESULTS', tokenBudget: 2000, form: 'RAW' }],
    });
    expect(next.body.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_a', content: DENIED });
  });
});
