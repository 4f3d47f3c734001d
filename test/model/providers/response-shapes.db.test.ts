import { describe, expect } from 'vitest';
import type { ProviderKind } from '../../../src/model/providers/types.js';
import { dbTest } from '../../support/fixtures.js';
import { allow, eventTypes } from '../../support/lifecycle.js';
import { type Json, loopClient, SUBMIT } from '../../support/model-loop.js';

/** One good turn per provider, calling test.echo. */
const GOOD: Record<ProviderKind, unknown> = {
  OPENAI_CHAT: {
    id: 'chatcmpl-1',
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'test_echo', arguments: '{"text":"a"}' } },
          ],
        },
      },
    ],
  },
  OPENAI_RESPONSES: {
    id: 'resp_1',
    output: [{ type: 'function_call', call_id: 'call_1', name: 'test_echo', arguments: '{"text":"a"}' }],
  },
  ANTHROPIC: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'test_echo', input: { text: 'a' } }],
    stop_reason: 'tool_use',
  },
  GEMINI: {
    responseId: 'r1',
    candidates: [
      { content: { role: 'model', parts: [{ functionCall: { name: 'test_echo', args: { text: 'a' } } }] } },
    ],
  },
};

type Garbage = { name: string; response: unknown; stream?: boolean; says: string };

/** Bodies that are no response of the provider, and the problem the refusal must name. */
const GARBAGE: Record<ProviderKind, Garbage[]> = {
  OPENAI_CHAT: [
    { name: 'not an object', response: 'hello', says: 'response: must be an object' },
    { name: 'an array', response: [GOOD.OPENAI_CHAT], says: 'response: must be an object' },
    { name: 'an empty object', response: {}, says: 'response.choices: required' },
    {
      name: 'a choice without its message',
      response: { choices: [{}] },
      says: 'response.choices[0].message: required',
    },
    {
      name: 'a tool call with a non-string name',
      response: {
        choices: [{ message: { tool_calls: [{ id: 'c', function: { name: 1, arguments: '{}' } }] } }],
      },
      says: 'response.choices[0].message.tool_calls[0].function.name: must be a string',
    },
    {
      name: 'a stream of something else',
      response: [{ hello: 'world' }],
      stream: true,
      says: 'response.choices: must not be empty',
    },
  ],
  OPENAI_RESPONSES: [
    { name: 'not an object', response: 7, says: 'response: must be an object' },
    { name: 'an array', response: [], says: 'response: must be an object' },
    { name: 'an empty object', response: {}, says: 'response.output: required' },
    { name: 'output of the wrong type', response: { output: {} }, says: 'response.output: must be a list' },
    {
      name: 'a function call with a non-string name',
      response: { output: [{ type: 'function_call', call_id: 'c', name: 2, arguments: '{}' }] },
      says: 'response.output[0].name: must be a string',
    },
    {
      name: 'a message without its content',
      response: { output: [{ type: 'message', role: 'assistant' }] },
      says: 'response.output[0].content: required',
    },
  ],
  ANTHROPIC: [
    // A client that sends the body as JSON text rather than as the JSON value.
    { name: 'the body as text', response: '{"content": []}', says: 'response: must be an object' },
    { name: 'an array', response: [{ type: 'text', text: 'hi' }], says: 'response: must be an object' },
    { name: 'an empty object', response: {}, says: 'response.content: required' },
    {
      name: 'a block without a type',
      response: { content: [{ text: 'hi' }] },
      says: 'response.content[0].type: required',
    },
    {
      name: 'a tool_use with a non-string name',
      response: { content: [{ type: 'tool_use', id: 'toolu_2', name: [], input: {} }] },
      says: 'response.content[0].name: must be a string',
    },
    {
      name: "the API's error body",
      response: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      says: "response.error: is the provider's error response, not a model turn: Overloaded",
    },
  ],
  GEMINI: [
    { name: 'not an object', response: true, says: 'response: must be an object' },
    { name: 'an array', response: [GOOD.GEMINI], says: 'response: must be an object' },
    { name: 'an empty object', response: {}, says: 'response.candidates: required' },
    {
      name: 'a candidate without content',
      response: { candidates: [{ index: 0 }] },
      says: 'response.candidates[0].content: required',
    },
    {
      name: 'a function call with a non-string name',
      response: { candidates: [{ content: { parts: [{ functionCall: { name: {}, args: {} } }] } }] },
      says: 'response.candidates[0].content.parts[0].functionCall.name: must be a string',
    },
    {
      name: 'a stream with no candidate in it',
      response: [{ promptFeedback: { blockReason: 'SAFETY' } }],
      stream: true,
      says: 'response.candidates: required',
    },
  ],
};

const TURNS = 'query($runId: ID!) { modelTurns(runId: $runId) { id index provider native parts } }';

/** An agent's run with the test tools allowed. */
const test = dbTest.extend<{ runId: string }>({
  runId: async ({ services, gql, tokens }, use) => {
    await allow(services);
    await use(await loopClient(gql, tokens).createRun({ profileId: 'p1', userId: 'u1' }));
  },
});

describe.each(Object.keys(GARBAGE) as ProviderKind[])('submitModelResponse as %s', (provider) => {
  test.for(GARBAGE[provider])(
    '$name is BAD_USER_INPUT, and nothing is stored',
    async (garbage, { services, gql, tokens, runId }) => {
      // One good turn (and its call) first, so that "unchanged" has something to keep.
      await loopClient(gql, tokens).submit(runId, provider, GOOD[provider]);
      const snapshot = async () => ({
        turns: (await gql(TURNS, { runId: runId }, tokens.AGENT)).data as Json,
        journal: await eventTypes(services, { runId: runId }),
        calls: (await services.calls.page({ runId: runId, limit: 100, inverted: false })).map((c) => c.id),
      });
      const before = await snapshot();
      expect(before.turns.modelTurns).toHaveLength(1);

      const res = await gql(
        SUBMIT,
        { runId: runId, provider, response: garbage.response, stream: garbage.stream ?? false },
        tokens.AGENT,
      );

      expect(res.data).toBeNull();
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.errors?.[0]?.message).toContain(`is not a response of ${provider}: ${garbage.says}`);
      expect(res.errors?.[0]?.extensions?.field).toBe('response');
      expect(res.errors?.[0]?.extensions?.problems).toContainEqual({
        path: garbage.says.slice(0, garbage.says.indexOf(': ')),
        message: garbage.says.slice(garbage.says.indexOf(': ') + 2),
      });
      expect(await snapshot()).toEqual(before);
    },
  );
});
