import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/core/errors.js';
import { adapterFor } from '../../../src/model/providers/index.js';
import {
  assertProviderResponse,
  type ResponseProblem,
  responseProblems,
} from '../../../src/model/providers/response-shapes.js';
import type { ProviderKind } from '../../../src/model/providers/types.js';
import { parseJsonLines, parseSse } from '../../support/sse.js';
import { fixtureJson, fixtureText } from './support.js';

/** Which provider each recorded fixture is a response of (DeepSeek speaks OpenAI Chat). */
function providerOf(file: string): ProviderKind {
  if (file.startsWith('anthropic-')) return 'ANTHROPIC';
  if (file.startsWith('gemini-')) return 'GEMINI';
  if (file.startsWith('openai-responses-')) return 'OPENAI_RESPONSES';
  return 'OPENAI_CHAT';
}

/** A recording may hold several streamed responses; each starts with its own `response.created`. */
function streamedResponses(file: string): unknown[][] {
  const text = fixtureText(file);
  const events = file.endsWith('.sse') ? parseSse(text) : parseJsonLines(text);
  if (providerOf(file) !== 'OPENAI_RESPONSES') return [events];
  const streams: unknown[][] = [];
  for (const event of events as Array<{ type?: string }>) {
    if (event.type === 'response.created' || streams.length === 0) streams.push([]);
    streams.at(-1)!.push(event);
  }
  return streams;
}

const FIXTURES = readdirSync(new URL('../../fixtures/providers/', import.meta.url)).sort();

describe('every recorded response is a response of its provider', () => {
  it.each(FIXTURES.filter((f) => f.endsWith('.json')))('%s', (file) => {
    expect(responseProblems(providerOf(file), fixtureJson(file))).toEqual([]);
  });

  it.each(FIXTURES.filter((f) => !f.endsWith('.json')))('%s, assembled from its stream', (file) => {
    const provider = providerOf(file);
    for (const events of streamedResponses(file)) {
      expect(responseProblems(provider, adapterFor(provider).assembleStream(events))).toEqual([]);
    }
  });
});

const problem = (path: string, message: string): ResponseProblem => ({ path, message });

/** Bodies that are not a response of the provider at all, and the first problems each is refused for. */
const GARBAGE: Record<ProviderKind, Array<[string, unknown, ResponseProblem[]]>> = {
  OPENAI_CHAT: [
    ['not an object', 'hello', [problem('response', 'must be an object')]],
    ['an array', [{ choices: [] }], [problem('response', 'must be an object')]],
    ['an empty object', {}, [problem('response.choices', 'required')]],
    ['no choices', { choices: [] }, [problem('response.choices', 'must not be empty')]],
    ['choices not a list', { choices: { message: {} } }, [problem('response.choices', 'must be a list')]],
    [
      'a choice without its message',
      { choices: [{ index: 0 }] },
      [problem('response.choices[0].message', 'required')],
    ],
    [
      'content that is not text',
      { choices: [{ message: { content: 42 } }] },
      [problem('response.choices[0].message.content', 'must be a string or null')],
    ],
    [
      'tool_calls not a list',
      { choices: [{ message: { tool_calls: { id: 'c1' } } }] },
      [problem('response.choices[0].message.tool_calls', 'must be a list')],
    ],
    [
      'a tool call with a non-string name',
      { choices: [{ message: { tool_calls: [{ id: 'c1', function: { name: 7, arguments: '{}' } }] } }] },
      [problem('response.choices[0].message.tool_calls[0].function.name', 'must be a string')],
    ],
    [
      'a tool call with arguments as an object',
      { choices: [{ message: { tool_calls: [{ id: 'c1', function: { name: 'f', arguments: {} } }] } }] },
      [problem('response.choices[0].message.tool_calls[0].function.arguments', 'must be a string')],
    ],
    [
      'a tool call without its function',
      { choices: [{ message: { tool_calls: [{ id: 'c1', type: 'function' }] } }] },
      [problem('response.choices[0].message.tool_calls[0].function', 'required')],
    ],
    [
      'an Anthropic message',
      fixtureJson('anthropic-messages-text-tool_use.json'),
      [problem('response.choices', 'required')],
    ],
  ],
  OPENAI_RESPONSES: [
    ['not an object', 42, [problem('response', 'must be an object')]],
    ['an array', [], [problem('response', 'must be an object')]],
    ['an empty object', {}, [problem('response.output', 'required')]],
    ['output not a list', { output: 'done' }, [problem('response.output', 'must be a list')]],
    ['an item without a type', { output: [{ name: 'f' }] }, [problem('response.output[0].type', 'required')]],
    [
      'a function call with a non-string name',
      { output: [{ type: 'function_call', call_id: 'c1', name: ['f'], arguments: '{}' }] },
      [problem('response.output[0].name', 'must be a string')],
    ],
    [
      'a function call without its call_id',
      { output: [{ type: 'function_call', name: 'f', arguments: '{}' }] },
      [problem('response.output[0].call_id', 'required')],
    ],
    [
      'a message without content',
      { output: [{ type: 'message', role: 'assistant' }] },
      [problem('response.output[0].content', 'required')],
    ],
    [
      'output text that is not text',
      { output: [{ type: 'message', content: [{ type: 'output_text', text: null }] }] },
      [problem('response.output[0].content[0].text', 'must be a string')],
    ],
    [
      'a chat completion',
      fixtureJson('openai-chat-completion-parallel-tool_calls.json'),
      [problem('response.output', 'required')],
    ],
  ],
  ANTHROPIC: [
    ['not an object', null, [problem('response', 'must be an object')]],
    ['an array', [{ type: 'text', text: 'hi' }], [problem('response', 'must be an object')]],
    ['an empty object', {}, [problem('response.content', 'required')]],
    ['content as a string', { content: 'hi' }, [problem('response.content', 'must be a list')]],
    [
      'a block without a type',
      { content: [{ text: 'hi' }] },
      [problem('response.content[0].type', 'required')],
    ],
    [
      'a text block without text',
      { content: [{ type: 'text' }] },
      [problem('response.content[0].text', 'required')],
    ],
    [
      'a tool_use with a non-string name',
      { content: [{ type: 'tool_use', id: 'toolu_1', name: { n: 'f' }, input: {} }] },
      [problem('response.content[0].name', 'must be a string')],
    ],
    [
      'a tool_use without its id',
      { content: [{ type: 'tool_use', name: 'f', input: {} }] },
      [problem('response.content[0].id', 'required')],
    ],
    [
      'a tool_use whose input is a list',
      { content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: [1] }] },
      [problem('response.content[0].input', 'must be an object')],
    ],
    [
      'a stop_reason that is not text',
      { content: [], stop_reason: 1 },
      [problem('response.stop_reason', 'must be a string or null')],
    ],
    [
      "the API's error body",
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      [
        problem('response.error', "is the provider's error response, not a model turn: Overloaded"),
        problem('response.type', 'must be "message"'),
        problem('response.content', 'required'),
      ],
    ],
  ],
  GEMINI: [
    ['not an object', true, [problem('response', 'must be an object')]],
    ['an array', [{ candidates: [] }], [problem('response', 'must be an object')]],
    ['an empty object', {}, [problem('response.candidates', 'required')]],
    [
      'a blocked prompt (no candidates)',
      { promptFeedback: { blockReason: 'SAFETY' } },
      [problem('response.candidates', 'required')],
    ],
    [
      'a candidate without content',
      { candidates: [{ index: 0 }] },
      [problem('response.candidates[0].content', 'required')],
    ],
    [
      'parts not a list',
      { candidates: [{ content: { role: 'model', parts: { text: 'hi' } } }] },
      [problem('response.candidates[0].content.parts', 'must be a list')],
    ],
    [
      'text that is not text',
      { candidates: [{ content: { parts: [{ text: 3 }] } }] },
      [problem('response.candidates[0].content.parts[0].text', 'must be a string')],
    ],
    [
      'a function call with a non-string name',
      { candidates: [{ content: { parts: [{ functionCall: { name: null, args: {} } }] } }] },
      [problem('response.candidates[0].content.parts[0].functionCall.name', 'must be a string')],
    ],
    [
      'a function call whose args are text',
      { candidates: [{ content: { parts: [{ functionCall: { name: 'weather', args: 'Oslo' } }] } }] },
      [problem('response.candidates[0].content.parts[0].functionCall.args', 'must be an object')],
    ],
    [
      "the API's error body",
      { error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT' } },
      [
        problem('response.error', "is the provider's error response, not a model turn: API key not valid."),
        problem('response.candidates', 'required'),
      ],
    ],
  ],
};

describe.each(Object.keys(GARBAGE) as ProviderKind[])('%s: a body that is not its response', (provider) => {
  it.each(GARBAGE[provider])('%s', (_name, body, problems) => {
    expect(responseProblems(provider, body)).toEqual(problems);
  });
});

describe("a stream with none of the provider's events assembles into no response", () => {
  const NOT_A_STREAM = [{ hello: 'world' }, { type: 'ping' }];
  it.each([
    ['OPENAI_CHAT', problem('response.choices', 'must not be empty')],
    ['OPENAI_RESPONSES', problem('response.output', 'required')],
    ['ANTHROPIC', problem('response.content', 'required')],
    ['GEMINI', problem('response.candidates', 'required')],
  ] as const)('%s', (provider, expected) => {
    expect(responseProblems(provider, adapterFor(provider).assembleStream(NOT_A_STREAM))).toEqual([expected]);
  });
});

describe('responses that are odd but real', () => {
  it('OPENAI_CHAT: a call without an id (some compatible servers) and content null', () => {
    const body = {
      choices: [{ message: { content: null, tool_calls: [{ function: { name: 'f', arguments: '' } }] } }],
    };
    expect(responseProblems('OPENAI_CHAT', body)).toEqual([]);
  });

  it('ANTHROPIC: a message with no content blocks, and a tool_use whose streamed input never became JSON', () => {
    expect(responseProblems('ANTHROPIC', { type: 'message', content: [], stop_reason: 'end_turn' })).toEqual(
      [],
    );
    const partial = { content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: '{"a": ' }] };
    expect(responseProblems('ANTHROPIC', partial)).toEqual([]);
  });

  it('GEMINI: a candidate stopped for safety without content, and content without parts', () => {
    expect(responseProblems('GEMINI', { candidates: [{ finishReason: 'SAFETY' }] })).toEqual([]);
    expect(
      responseProblems('GEMINI', {
        candidates: [{ content: { role: 'model' }, finishReason: 'MAX_TOKENS' }],
      }),
    ).toEqual([]);
  });

  it('item and block types the adapter does not know are carried along unchecked', () => {
    expect(responseProblems('OPENAI_RESPONSES', { output: [{ type: 'program', anything: [1, 2] }] })).toEqual(
      [],
    );
    expect(responseProblems('ANTHROPIC', { content: [{ type: 'redacted_thinking', data: 'xyz' }] })).toEqual(
      [],
    );
  });
});

describe('assertProviderResponse', () => {
  it('refuses with BAD_USER_INPUT naming each problem, its path and what was expected', () => {
    const body = { choices: [{ index: 0 }, { message: { content: 1 } }] };
    const thrown = (() => {
      try {
        assertProviderResponse('OPENAI_CHAT', body);
      } catch (error) {
        return error;
      }
    })();
    expect(DomainError.is(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      code: 'BAD_USER_INPUT',
      message:
        'response is not a response of OPENAI_CHAT: response.choices[0].message: required; ' +
        'response.choices[1].message.content: must be a string or null',
      details: {
        field: 'response',
        problems: [
          problem('response.choices[0].message', 'required'),
          problem('response.choices[1].message.content', 'must be a string or null'),
        ],
      },
    });
  });

  it('says when the paths are those of the response a stream assembled into', () => {
    expect(() => assertProviderResponse('GEMINI', { candidates: [] }, true)).toThrow(
      'response (the response its events assemble into) is not a response of GEMINI: response.candidates: must not be empty',
    );
  });

  it('names at most five problems', () => {
    const parts = Array.from({ length: 8 }, () => ({ text: 0 }));
    expect(responseProblems('GEMINI', { candidates: [{ content: { parts } }] })).toHaveLength(5);
  });

  it('accepts a response of the provider', () => {
    expect(() =>
      assertProviderResponse('ANTHROPIC', fixtureJson('anthropic-messages-thinking-text.json')),
    ).not.toThrow();
  });
});
