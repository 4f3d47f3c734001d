import { describe, expect, it } from 'vitest';
import { adapterFor } from '../../../src/model/providers/index.js';
import { parseSse } from '../../support/sse.js';
import { FIXTURE_TOOLS, fixtureJson, spec, textResult } from './support.js';

const anthropic = adapterFor('ANTHROPIC');
const { names } = anthropic.toolDeclarations(FIXTURE_TOOLS);
const THINKING_TOOL_USE = 'anthropic-messages-thinking-tool_use.json';

type Block = Record<string, unknown>;

function sse(events: Array<Record<string, unknown>>): string {
  return events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');
}

/** The recorded thinking + tool_use response, as the event stream Anthropic sends for it. */
function streamOf(body: Record<string, unknown>, toolInputJson: string): string {
  const [thinking, toolUse] = body.content as Block[];
  const { content: _content, stop_reason, stop_sequence, usage, ...message } = body;
  const thought = thinking!.thinking as string;
  return sse([
    {
      type: 'message_start',
      message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage },
    },
    {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    },
    {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'thinking_delta', thinking: thought.slice(0, 20) },
    },
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: thought.slice(20) } },
    {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'signature_delta', signature: thinking!.signature },
    },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { ...toolUse, input: {} } },
    {
      type: 'content_block_delta',
      index: 1,
      delta: { type: 'input_json_delta', partial_json: toolInputJson },
    },
    { type: 'content_block_stop', index: 1 },
    { type: 'message_delta', delta: { stop_reason, stop_sequence }, usage: { output_tokens: 59 } },
    { type: 'message_stop' },
  ]);
}

describe('Anthropic toolDeclarations', () => {
  it('declares tools without strict by default, schema kept as is', () => {
    const schema = { type: 'object', properties: { q: { type: 'string', minLength: 1 } } };
    expect(anthropic.toolDeclarations([spec('chat.search', schema)]).tools).toEqual([
      { name: 'chat_search', description: 'Test tool chat.search', input_schema: schema },
    ]);
  });

  it('narrows the schema and marks the tool strict when asked', () => {
    const schema = { type: 'object', properties: { q: { type: 'string', minLength: 1 } } };
    expect(anthropic.toolDeclarations([spec('chat.search', schema)], { strict: true }).tools).toEqual([
      {
        name: 'chat_search',
        description: 'Test tool chat.search',
        input_schema: { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false },
        strict: true,
      },
    ]);
  });

  it('sends a recursive schema without strict and says why', () => {
    const schema = {
      type: 'object',
      properties: { node: { $ref: '#/$defs/Node' } },
      $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } } } },
    };
    expect(anthropic.toolDeclarations([spec('tree.walk', schema)], { strict: true }).report).toEqual([
      {
        tool: 'tree.walk',
        nativeName: 'tree_walk',
        strict: false,
        entries: [
          {
            path: '',
            action: 'rewritten',
            keyword: 'strict',
            detail:
              'strict mode disabled: recursive reference #/$defs/Node cannot be expressed in Anthropic strict mode',
          },
        ],
      },
    ]);
  });

  it('stops marking tools strict past 20 in one request', () => {
    const specs = Array.from({ length: 21 }, (_, i) =>
      spec(`tool.n${i}`, { type: 'object', properties: {} }),
    );
    const last = anthropic.toolDeclarations(specs, { strict: true }).report.at(-1);
    expect(last).toEqual({
      tool: 'tool.n20',
      nativeName: 'tool_n20',
      strict: false,
      entries: [
        {
          path: '',
          action: 'rewritten',
          keyword: 'strict',
          detail: 'strict mode disabled: more than 20 strict tools in one request',
        },
      ],
    });
  });

  it('stops marking tools strict past 24 optional parameters in one request', () => {
    const properties = Object.fromEntries(
      Array.from({ length: 13 }, (_, i) => [`p${i}`, { type: 'string' }]),
    );
    const specs = [
      spec('a.one', { type: 'object', properties }),
      spec('a.two', { type: 'object', properties }),
    ];
    expect(
      anthropic
        .toolDeclarations(specs, { strict: true })
        .report.map((r) => [r.tool, r.strict, r.entries[0]?.detail]),
    ).toEqual([
      ['a.one', true, 'strict mode needs additionalProperties: false (was unset)'],
      ['a.two', false, 'strict mode disabled: more than 24 optional parameters across strict tools'],
    ]);
  });
});

describe('Anthropic parseResponse', () => {
  it('parses a tool_use that follows a signed thinking block', () => {
    expect(anthropic.parseResponse(fixtureJson(THINKING_TOOL_USE), names).calls).toEqual([
      {
        call: {
          id: 'toolu_017R7ACrx7NF7sLDDtvdQ1u9',
          name: 'checkSandboxErrors',
          arguments: {},
          providerMetadata: {
            provider: 'ANTHROPIC',
            nativeName: 'checkSandboxErrors',
            caller: { type: 'direct' },
          },
        },
        error: null,
      },
    ]);
  });

  it('keeps the content blocks exactly as received for replay', () => {
    const body = fixtureJson(THINKING_TOOL_USE);
    expect(anthropic.parseResponse(body, names).assistantTurn.native).toEqual([
      { role: 'assistant', content: body.content },
    ]);
  });

  it('keeps text next to a call with empty input', () => {
    const { calls, assistantTurn } = anthropic.parseResponse(
      fixtureJson('anthropic-messages-text-tool_use.json'),
      names,
    );
    expect([
      calls.map((c) => [c.call.id, c.call.name, c.call.arguments]),
      assistantTurn.parts.map((p) => p.kind),
    ]).toEqual([[['toolu_01LRmxn9vGM1d2DZSDBowdZ1', 'updateIssueList', {}]], ['text', 'tool_call']]);
  });

  it('finds no calls in a thinking + text answer', () => {
    const { calls, assistantTurn } = anthropic.parseResponse(
      fixtureJson('anthropic-messages-thinking-text.json'),
      names,
    );
    expect([calls, assistantTurn.parts]).toEqual([[], [{ kind: 'text', text: '925 ÷ 5 = 185' }]]);
  });

  it('turns a tool name that was not offered into an error for that call', () => {
    const body = {
      id: 'msg_1',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'format_disk', input: {} }],
    };
    expect(anthropic.parseResponse(body, names).calls[0]!.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'unknown_tool',
      message: 'The model called "format_disk", which is not one of the tools offered for this run.',
    });
  });
});

describe('Anthropic assembleStream', () => {
  it('rebuilds the recorded response from its event stream', () => {
    const body = fixtureJson(THINKING_TOOL_USE);
    const assembled = anthropic.assembleStream(parseSse(streamOf(body, ''))) as Record<string, unknown>;
    expect([assembled.content, assembled.stop_reason]).toEqual([body.content, 'tool_use']);
  });

  it('yields the same calls as the whole response', () => {
    const body = fixtureJson(THINKING_TOOL_USE);
    const assembled = anthropic.assembleStream(parseSse(streamOf(body, '')));
    expect(anthropic.parseResponse(assembled, names).calls).toEqual(
      anthropic.parseResponse(body, names).calls,
    );
  });

  it('turns streamed input that is not JSON into an error and replays the block with empty input', () => {
    const body = fixtureJson(THINKING_TOOL_USE);
    const parsed = anthropic.parseResponse(
      anthropic.assembleStream(parseSse(streamOf(body, '{"path": '))),
      names,
    );
    const replayed = (parsed.assistantTurn.native[0] as { content: Block[] }).content[1];
    expect([parsed.calls[0]!.call.arguments, parsed.calls[0]!.error?.code, replayed!.input]).toEqual([
      '{"path": ',
      'invalid_arguments',
      {},
    ]);
  });
});

describe('Anthropic toolResultMessages', () => {
  it('answers every call in one user message of tool_result blocks', () => {
    const body = {
      id: 'msg_2',
      content: [
        { type: 'tool_use', id: 'toolu_a', name: 'weather', input: { location: 'Oslo' } },
        { type: 'tool_use', id: 'toolu_b', name: 'weather', input: { location: 'Rome' } },
        { type: 'tool_use', id: 'toolu_c', name: 'weather', input: { location: 'Lima' } },
      ],
    };
    const turn = anthropic.parseResponse(body, names).assistantTurn;
    const outcomes = [
      { callId: 'toolu_a', outcome: 'result', result: textResult('toolu_a', 'timeout', true) },
      { callId: 'toolu_b', outcome: 'cancelled' },
    ] as const;
    expect(anthropic.toolResultMessages(turn, outcomes, names)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: 'timeout', is_error: true },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_b',
            content: 'Cancelled: this tool call was cancelled and did not complete.',
            is_error: true,
          },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_c',
            content: 'No result: no outcome was recorded for this tool call.',
            is_error: true,
          },
        ],
      },
    ]);
  });
});

describe('Anthropic round trip', () => {
  it('replays the thinking signature byte for byte, ahead of the tool_use', () => {
    const body = fixtureJson(THINKING_TOOL_USE);
    const original = body.content as Block[];
    const { calls, assistantTurn } = anthropic.parseResponse(body, names);
    const next = [
      ...anthropic.renderAssistantTurn(assistantTurn, names),
      ...anthropic.toolResultMessages(
        assistantTurn,
        calls.map(({ call }) => ({
          callId: call.id,
          outcome: 'result',
          result: textResult(call.id, 'no errors'),
        })),
        names,
      ),
    ] as Array<{ role: string; content: Block[] }>;
    expect(next).toEqual([
      { role: 'assistant', content: original },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_017R7ACrx7NF7sLDDtvdQ1u9',
            content: 'no errors',
            is_error: false,
          },
        ],
      },
    ]);
    expect(JSON.stringify(next[0]!.content)).toBe(JSON.stringify(original));
  });
});
