import { describe, expect, it } from 'vitest';
import { adapterFor } from '../../../src/model/providers/index.js';
import { parseSse } from '../../support/sse.js';
import { FIXTURE_TOOLS, fixtureJson, fixtureText, spec, textResult } from './support.js';

const chat = adapterFor('OPENAI_CHAT');
const { names } = chat.toolDeclarations(FIXTURE_TOOLS);
const PARALLEL = 'openai-chat-completion-parallel-tool_calls.json';
const DEEPSEEK = 'deepseek-chat-completion-reasoning_content-tool_calls.json';

function completion(toolCalls: unknown[]): unknown {
  return {
    id: 'chatcmpl-test',
    choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: toolCalls } }],
  };
}

describe('OpenAI Chat toolDeclarations', () => {
  it('declares only enabled tools visible to the model, under provider-safe names', () => {
    const specs = [
      spec('workspace.apply_patch', {
        type: 'object',
        properties: { patch: { type: 'string' } },
        required: ['patch'],
      }),
      spec('secret.tool', undefined, { visibility: 'USER_ONLY' }),
      spec('old.tool', undefined, { enabled: false }),
    ];
    expect(chat.toolDeclarations(specs).tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'workspace_apply_patch',
          description: 'Test tool workspace.apply_patch',
          parameters: {
            type: 'object',
            properties: { patch: { type: 'string' } },
            required: ['patch'],
            additionalProperties: false,
          },
          strict: true,
        },
      },
    ]);
  });

  it('reports the strict-mode rewrites per tool', () => {
    const specs = [spec('chat.search', { type: 'object', properties: { q: { type: 'string' } } })];
    expect(chat.toolDeclarations(specs).report).toEqual([
      {
        tool: 'chat.search',
        nativeName: 'chat_search',
        strict: true,
        entries: [
          {
            path: '',
            action: 'rewritten',
            keyword: 'additionalProperties',
            detail: 'strict mode needs additionalProperties: false (was unset)',
          },
          {
            path: '/properties/q',
            action: 'rewritten',
            keyword: 'required',
            detail: 'optional property made required and nullable (strict mode requires every property)',
          },
        ],
      },
    ]);
  });

  it('sends a free-form schema without strict and says why', () => {
    const schema = { type: 'object', properties: { args: { type: 'object' } } };
    const declared = chat.toolDeclarations([spec('mcp.any', schema)]);
    expect([declared.tools, declared.report]).toEqual([
      [
        {
          type: 'function',
          function: { name: 'mcp_any', description: 'Test tool mcp.any', parameters: schema, strict: false },
        },
      ],
      [
        {
          tool: 'mcp.any',
          nativeName: 'mcp_any',
          strict: false,
          entries: [
            {
              path: '',
              action: 'rewritten',
              keyword: 'strict',
              detail:
                'strict mode disabled: object without properties at /properties/args would only accept {} once closed',
            },
          ],
        },
      ],
    ]);
  });

  it('leaves the schema alone when strict is turned off', () => {
    const schema = { type: 'object', properties: { q: { type: 'string' } } };
    expect(chat.toolDeclarations([spec('search', schema)], { strict: false }).tools).toEqual([
      {
        type: 'function',
        function: { name: 'search', description: 'Test tool search', parameters: schema, strict: false },
      },
    ]);
  });
});

describe('OpenAI Chat parseResponse', () => {
  it('parses parallel tool calls', () => {
    expect(chat.parseResponse(fixtureJson(PARALLEL), names).calls).toEqual([
      {
        call: {
          id: 'call_fdNz3vOBKYgOIpMdWotB9MjY',
          name: 'GetWeatherArgs',
          arguments: { city: 'Edinburgh', country: 'GB', units: 'c' },
          providerMetadata: { provider: 'OPENAI_CHAT', nativeName: 'GetWeatherArgs' },
        },
        error: null,
      },
      {
        call: {
          id: 'call_h1DWI1POMJLb0KwIyQHWXD4p',
          name: 'get_stock_price',
          arguments: { ticker: 'AAPL', exchange: 'NASDAQ' },
          providerMetadata: { provider: 'OPENAI_CHAT', nativeName: 'get_stock_price' },
        },
        error: null,
      },
    ]);
  });

  it('keeps the assistant message in replayable form, without response-only fields', () => {
    expect(chat.parseResponse(fixtureJson(PARALLEL), names).assistantTurn.native).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_fdNz3vOBKYgOIpMdWotB9MjY',
            type: 'function',
            function: {
              name: 'GetWeatherArgs',
              arguments: '{"city": "Edinburgh", "country": "GB", "units": "c"}',
            },
          },
          {
            id: 'call_h1DWI1POMJLb0KwIyQHWXD4p',
            type: 'function',
            function: { name: 'get_stock_price', arguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}' },
          },
        ],
      },
    ]);
  });

  it('parses a DeepSeek call and keeps its reasoning_content for replay', () => {
    const body = fixtureJson(DEEPSEEK);
    const parsed = chat.parseResponse(body, names);
    expect([parsed.calls, parsed.assistantTurn.native]).toEqual([
      [
        {
          call: {
            id: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo',
            name: 'weather',
            arguments: { location: 'San Francisco' },
            providerMetadata: { provider: 'OPENAI_CHAT', nativeName: 'weather' },
          },
          error: null,
        },
      ],
      [(body.choices as Array<{ message: unknown }>)[0]!.message],
    ]);
  });

  it('turns arguments that are not JSON into an error for that call only', () => {
    const body = completion([
      { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"location": "Par' } },
      { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"location": "Oslo"}' } },
    ]);
    expect(chat.parseResponse(body, names).calls.map((c) => [c.call.arguments, c.error])).toEqual([
      [
        '{"location": "Par',
        {
          kind: 'RECOVERABLE',
          code: 'invalid_arguments',
          message: 'The arguments for "weather" are not a JSON object.',
        },
      ],
      [{ location: 'Oslo' }, null],
    ]);
  });

  it('turns a tool name that was not offered into an error for that call', () => {
    const body = completion([
      { id: 'call_1', type: 'function', function: { name: 'rm_rf', arguments: '{}' } },
    ]);
    expect(chat.parseResponse(body, names).calls).toEqual([
      {
        call: {
          id: 'call_1',
          name: 'rm_rf',
          arguments: {},
          providerMetadata: { provider: 'OPENAI_CHAT', nativeName: 'rm_rf' },
        },
        error: {
          kind: 'RECOVERABLE',
          code: 'unknown_tool',
          message: 'The model called "rm_rf", which is not one of the tools offered for this run.',
        },
      },
    ]);
  });

  it('decodes provider names back to our dotted tool names', () => {
    const declared = chat.toolDeclarations([spec('workspace.apply_patch')]);
    const body = completion([
      { id: 'c', type: 'function', function: { name: 'workspace_apply_patch', arguments: '' } },
    ]);
    expect(chat.parseResponse(body, declared.names).calls[0]!.call.name).toBe('workspace.apply_patch');
  });

  it('derives the same id every time for a call that has none', () => {
    const body = completion([{ type: 'function', function: { name: 'weather', arguments: '{}' } }]);
    const first = chat.parseResponse(body, names).calls[0]!.call.id;
    expect([
      first.match(/^synth_[0-9a-f]{24}$/) !== null,
      chat.parseResponse(body, names).calls[0]!.call.id,
    ]).toEqual([true, first]);
  });

  it('derives different ids for identical id-less calls at different positions', () => {
    const call = { type: 'function', function: { name: 'weather', arguments: '{}' } };
    const [a, b] = chat.parseResponse(completion([call, call]), names).calls;
    expect(a!.call.id).not.toBe(b!.call.id);
  });
});

describe('OpenAI Chat assembleStream', () => {
  const streamed = chat.assembleStream(
    parseSse(fixtureText('openai-chat-completion-parallel-tool_calls.stream.sse')),
  );

  it('rebuilds the whole completion from SSE chunks', () => {
    expect(streamed).toEqual({
      id: 'chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63',
      object: 'chat.completion',
      created: 1727346178,
      model: 'gpt-4o-2024-08-06',
      system_fingerprint: 'fp_5050236cbd',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_JMW1whyEaYG438VE1OIflxA2',
                type: 'function',
                function: {
                  name: 'GetWeatherArgs',
                  arguments: '{"city": "Edinburgh", "country": "GB", "units": "c"}',
                },
              },
              {
                id: 'call_DNYTawLBoN8fj3KN6qU9N1Ou',
                type: 'function',
                function: { name: 'get_stock_price', arguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}' },
              },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: 149,
        completion_tokens: 60,
        total_tokens: 209,
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
  });

  it('yields the same calls as the non-streamed recording of the same request', () => {
    const nameAndArgs = (body: unknown) =>
      chat.parseResponse(body, names).calls.map(({ call }) => [call.name, call.arguments]);
    expect(nameAndArgs(streamed)).toEqual(nameAndArgs(fixtureJson(PARALLEL)));
  });
});

describe('OpenAI Chat toolResultMessages', () => {
  it('answers every call of the turn with a tool message, in call order', () => {
    const turn = chat.parseResponse(fixtureJson(PARALLEL), names).assistantTurn;
    const messages = chat.toolResultMessages(
      turn,
      [
        { callId: 'call_h1DWI1POMJLb0KwIyQHWXD4p', outcome: 'denied', message: 'trading tools are off' },
        {
          callId: 'call_fdNz3vOBKYgOIpMdWotB9MjY',
          outcome: 'result',
          result: textResult('x', '12°C, light rain'),
        },
      ],
      names,
    );
    expect(messages).toEqual([
      { role: 'tool', tool_call_id: 'call_fdNz3vOBKYgOIpMdWotB9MjY', content: '12°C, light rain' },
      {
        role: 'tool',
        tool_call_id: 'call_h1DWI1POMJLb0KwIyQHWXD4p',
        content: 'Denied: this tool call was not approved and did not run. Reason: trading tools are off',
      },
    ]);
  });
});

describe('OpenAI Chat round trip', () => {
  it('replays a DeepSeek turn with reasoning_content and arguments byte for byte', () => {
    const body = fixtureJson(DEEPSEEK);
    const original = (body.choices as Array<{ message: Record<string, unknown> }>)[0]!.message;
    const { calls, assistantTurn } = chat.parseResponse(body, names);
    const next = [
      ...chat.renderAssistantTurn(assistantTurn, names),
      ...chat.toolResultMessages(
        assistantTurn,
        calls.map(({ call }) => ({
          callId: call.id,
          outcome: 'result',
          result: textResult(call.id, 'Sunny, 18°C'),
        })),
        names,
      ),
    ];
    expect(JSON.stringify(next[0])).toBe(JSON.stringify(original));
    expect(next[1]).toEqual({
      role: 'tool',
      tool_call_id: 'call_00_9V0vrf86Pc9aelHCJMZqnJBo',
      content: 'Sunny, 18°C',
    });
  });
});
