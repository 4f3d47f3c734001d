import { describe, expect, it } from 'vitest';
import { adapterFor } from '../../../src/model/providers/index.js';
import { parseJsonLines } from '../../support/sse.js';
import { FIXTURE_TOOLS, fixtureJson, fixtureText, spec, textResult } from './support.js';

const responses = adapterFor('OPENAI_RESPONSES');
const { names } = responses.toolDeclarations(FIXTURE_TOOLS);

type Event = Record<string, unknown>;

/** The fixture is four recorded responses of one agent loop back to back. */
function recordedStreams(): Event[][] {
  const streams: Event[][] = [];
  for (const event of parseJsonLines(
    fixtureText('openai-responses-reasoning-function_call.stream.jsonl'),
  ) as Event[]) {
    if (event.type === 'response.created') streams.push([]);
    streams.at(-1)!.push(event);
  }
  return streams;
}

function completedResponse(events: Event[]): Record<string, unknown> {
  return events.find((e) => e.type === 'response.completed')!.response as Record<string, unknown>;
}

describe('OpenAI Responses toolDeclarations', () => {
  it('declares flat function tools', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'number' } },
      required: ['a'],
      additionalProperties: false,
    };
    expect(responses.toolDeclarations([spec('math.add', schema)]).tools).toEqual([
      {
        type: 'function',
        name: 'math_add',
        description: 'Test tool math.add',
        parameters: schema,
        strict: true,
      },
    ]);
  });
});

describe('OpenAI Responses parseResponse', () => {
  it('parses a function_call item', () => {
    expect(
      responses.parseResponse(fixtureJson('openai-responses-function_call-azure.json'), names).calls,
    ).toEqual([
      {
        call: {
          id: 'call_YunNGbIwdVJ2i0y0Mybva4Pw',
          name: 'weather',
          arguments: { location: 'San Francisco' },
          providerMetadata: {
            provider: 'OPENAI_RESPONSES',
            nativeName: 'weather',
            itemId: 'fc_0a2fa1b539ba14ba00698c519ebab0819494302fc0b5c31440',
          },
        },
        error: null,
      },
    ]);
  });

  it('reads the text of a final message and keeps the reasoning item in front of it', () => {
    const body = fixtureJson('openai-responses-reasoning-message.json');
    const { calls, assistantTurn } = responses.parseResponse(body, names);
    expect([calls, assistantTurn]).toEqual([
      [],
      {
        provider: 'OPENAI_RESPONSES',
        native: body.output,
        parts: [{ kind: 'text', text: '12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570' }],
      },
    ]);
  });

  it('tolerates an unknown item type and keeps it in place for replay', () => {
    const body = fixtureJson('openai-responses-reasoning-program-function_call.json');
    const { calls, assistantTurn } = responses.parseResponse(body, names);
    expect([calls, assistantTurn.native.map((item) => (item as Event).type)]).toEqual([
      [
        {
          call: {
            id: 'call_rj6LW6NEyodD5YVKeoexoLNz',
            name: 'getInventory',
            arguments: { sku: 'sku_123' },
            providerMetadata: {
              provider: 'OPENAI_RESPONSES',
              nativeName: 'getInventory',
              itemId: 'fc_0742d30c1d273351016a6145f1dac0819fb0053980ae918c16',
              caller: { type: 'program', caller_id: 'call_O2IvSLQcJ0bwIvJZ2ovGV69M' },
            },
          },
          error: null,
        },
      ],
      ['reasoning', 'program', 'function_call'],
    ]);
  });
});

describe('OpenAI Responses assembleStream', () => {
  it('returns the terminal response of each recorded stream', () => {
    const streams = recordedStreams();
    expect(streams.map((events) => responses.assembleStream(events))).toEqual(streams.map(completedResponse));
  });

  it('parses the calls of each step of the recorded agent loop', () => {
    const steps = recordedStreams().map((events) =>
      responses
        .parseResponse(responses.assembleStream(events), names)
        .calls.map(({ call }) => [call.id, call.arguments]),
    );
    expect(steps).toEqual([
      [['call_AB6AaRZ1FYZB2RwS6A5vbdqn', { a: 12, b: 7, op: 'add' }]],
      [['call_Q6pW65MUgW9vF59BmItYGos3', { a: 19, b: 3, op: 'multiply' }]],
      [['call_Zl5vIMnD7dVAjgU6FkhmiCZh', { a: 57, b: 10, op: 'multiply' }]],
      [],
    ]);
  });

  it('rebuilds the same calls from item events when the terminal event is missing', () => {
    const [first] = recordedStreams();
    const withoutTerminal = first!.filter((e) => e.type !== 'response.completed');
    const calls = (body: unknown) => responses.parseResponse(body, names).calls;
    expect(calls(responses.assembleStream(withoutTerminal))).toEqual(calls(completedResponse(first!)));
  });

  it('turns a call cut off mid-arguments into an error for that call', () => {
    const [first] = recordedStreams();
    const cut = first!.filter((e) => e.sequence_number !== undefined && (e.sequence_number as number) <= 45);
    expect(responses.parseResponse(responses.assembleStream(cut), names).calls).toEqual([
      {
        call: {
          id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn',
          name: 'calculator',
          arguments: '{"a":12,"b',
          providerMetadata: {
            provider: 'OPENAI_RESPONSES',
            nativeName: 'calculator',
            itemId: 'fc_01830d662ab3856501693c32151234819091cfca267e98cc5f',
          },
        },
        error: {
          kind: 'RECOVERABLE',
          code: 'invalid_arguments',
          message: 'The arguments for "calculator" are not a JSON object.',
        },
      },
    ]);
  });
});

describe('OpenAI Responses toolResultMessages', () => {
  it('answers a call with function_call_output, saying when it was interrupted', () => {
    const turn = responses.parseResponse(
      fixtureJson('openai-responses-function_call-azure.json'),
      names,
    ).assistantTurn;
    expect(
      responses.toolResultMessages(
        turn,
        [{ callId: 'call_YunNGbIwdVJ2i0y0Mybva4Pw', outcome: 'interrupted' }],
        names,
      ),
    ).toEqual([
      {
        type: 'function_call_output',
        call_id: 'call_YunNGbIwdVJ2i0y0Mybva4Pw',
        output:
          'Interrupted: this tool call was interrupted before it finished; its effects may be incomplete.',
      },
    ]);
  });
});

describe('OpenAI Responses round trip', () => {
  it('replays the reasoning item byte for byte, directly before the call it led to', () => {
    const [first] = recordedStreams();
    const body = completedResponse(first!);
    const output = body.output as Event[];
    const { calls, assistantTurn } = responses.parseResponse(responses.assembleStream(first!), names);
    const input = [
      ...responses.renderAssistantTurn(assistantTurn, names),
      ...responses.toolResultMessages(
        assistantTurn,
        calls.map(({ call }) => ({ callId: call.id, outcome: 'result', result: textResult(call.id, '19') })),
        names,
      ),
    ] as Event[];
    expect(input).toEqual([
      output[0],
      output[1],
      { type: 'function_call_output', call_id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', output: '19' },
    ]);
    expect(JSON.stringify(input[0]!.encrypted_content)).toBe(JSON.stringify(output[0]!.encrypted_content));
  });
});
