import { describe, expect, it } from 'vitest';
import { adapterFor } from '../../../src/model/providers/index.js';
import { buildNameMap } from '../../../src/model/providers/names.js';
import { parseJsonLines } from '../../support/sse.js';
import { FIXTURE_TOOLS, fixtureJson, fixtureText, spec, textResult } from './support.js';

const gemini = adapterFor('GEMINI');
const { names } = gemini.toolDeclarations(FIXTURE_TOOLS);
const SINGLE = 'gemini-generateContent-functionCall-thoughtSignature.json';
const STREAM = 'gemini-streamGenerateContent-thought-parallel-functionCall.stream.jsonl';

type Part = Record<string, unknown>;

function streamChunks(): unknown[] {
  return parseJsonLines(fixtureText(STREAM));
}

function signatureOfChunk(line: number): string {
  const chunk = streamChunks()[line] as { candidates: Array<{ content: { parts: Part[] } }> };
  return chunk.candidates[0]!.content.parts[0]!.thoughtSignature as string;
}

function modelTurn(parts: Part[], responseId = 'resp-1'): unknown {
  return { candidates: [{ content: { role: 'model', parts } }], responseId };
}

describe('Gemini toolDeclarations', () => {
  it('groups declarations in one tool and omits parameters for a tool without any', () => {
    const schema = {
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
      additionalProperties: false,
    };
    expect(gemini.toolDeclarations([spec('mcp.github.search', schema), spec('skill.list')]).tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'mcp_github_search',
            description: 'Test tool mcp.github.search',
            parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
          },
          { name: 'skill_list', description: 'Test tool skill.list' },
        ],
      },
    ]);
  });

  it('sends no tools field content when no tool is visible', () => {
    expect(gemini.toolDeclarations([spec('secret', undefined, { visibility: 'USER_ONLY' })]).tools).toEqual(
      [],
    );
  });
});

describe('Gemini parseResponse', () => {
  it('parses a call, derives its id and keeps the signature of its part', () => {
    const [parsed] = gemini.parseResponse(fixtureJson(SINGLE), names).calls;
    expect(parsed).toEqual({
      call: {
        id: expect.stringMatching(/^synth_[0-9a-f]{24}$/),
        name: 'weather',
        arguments: { location: 'San Francisco' },
        providerMetadata: {
          provider: 'GEMINI',
          nativeName: 'weather',
          syntheticId: true,
          thoughtSignature:
            'Eqo+Cqc+Ab4+9vtgONaaz6qwy6WXdp7gCd2w0X+Wz2gaBgY0Gv6A12JKo0y5vQwf9YQFyhMbKr1E9m17VT6HXd7jXzjaGYaE',
        },
      },
      error: null,
    });
  });

  it('derives the same id each time the response is parsed', () => {
    const id = () => gemini.parseResponse(fixtureJson(SINGLE), names).calls[0]!.call.id;
    expect(id()).toBe(id());
  });

  it('derives different ids for identical calls at different positions', () => {
    const call = { functionCall: { name: 'read_screen', args: { id: 'A' } } };
    const [a, b] = gemini.parseResponse(modelTurn([call, call]), names).calls;
    expect(a!.call.id).not.toBe(b!.call.id);
  });

  it('uses the id Gemini gives when there is one', () => {
    const body = modelTurn([{ functionCall: { id: 'fc-7', name: 'weather', args: {} } }]);
    expect(gemini.parseResponse(body, names).calls[0]!.call).toEqual({
      id: 'fc-7',
      name: 'weather',
      arguments: {},
      providerMetadata: { provider: 'GEMINI', nativeName: 'weather', syntheticId: false },
    });
  });

  it('keeps a signed text part as it came and reads its text', () => {
    const body = fixtureJson('gemini-generateContent-text-thoughtSignature.json');
    const content = (body.candidates as Array<{ content: unknown }>)[0]!.content;
    const { calls, assistantTurn } = gemini.parseResponse(body, names);
    expect([calls, assistantTurn]).toEqual([
      [],
      {
        provider: 'GEMINI',
        native: [content],
        parts: [
          {
            kind: 'text',
            text: 'There are **3** "r"s in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.',
          },
        ],
      },
    ]);
  });

  it('turns args that are not an object into an error for that call', () => {
    // submitModelResponse refuses such a body before parsing (response-shapes); the adapter stays defensive.
    const body = modelTurn([{ functionCall: { name: 'weather', args: 'Oslo' } }]);
    expect(gemini.parseResponse(body, names).calls[0]!.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'invalid_arguments',
      message: 'The arguments for "weather" are not a JSON object.',
    });
  });
});

describe('Gemini assembleStream', () => {
  it('rebuilds the parallel calls from partialArgs, leaving the signature on the first call only', () => {
    const assembled = gemini.assembleStream(streamChunks()) as { candidates: Array<{ content: unknown }> };
    expect(assembled.candidates[0]!.content).toEqual({
      role: 'model',
      parts: [
        {
          text: '**Processing User Requests**\n\nI\'ve started by understanding the user\'s instructions. Currently, I\'m focusing on the initial steps: reading the specified theme using the appropriate tool. Next, I plan to tackle reading the screens, beginning with screen "A," then proceeding with "B" and "C" in parallel as instructed.\n\n\n',
          thought: true,
        },
        { functionCall: { name: 'read_theme' }, thoughtSignature: signatureOfChunk(1) },
        { functionCall: { name: 'read_screen', args: { id: 'A' } } },
        { functionCall: { name: 'read_screen', args: { id: 'B' } } },
        { functionCall: { name: 'read_screen', args: { id: 'C' } } },
      ],
    });
  });

  it('keeps the final finish reason, usage and response id', () => {
    const assembled = gemini.assembleStream(streamChunks()) as Record<string, unknown>;
    const last = streamChunks().at(-1) as Record<string, unknown>;
    expect([
      (assembled.candidates as Array<Record<string, unknown>>)[0]!.finishReason,
      assembled.usageMetadata,
      assembled.responseId,
    ]).toEqual(['STOP', last.usageMetadata, '_vr4aYiWEJnYodAPkujX0QM']);
  });

  it('parses the four calls with their names and arguments', () => {
    const calls = gemini.parseResponse(gemini.assembleStream(streamChunks()), names).calls;
    expect(
      calls.map(({ call }) => [call.name, call.arguments, 'thoughtSignature' in call.providerMetadata!]),
    ).toEqual([
      ['read_theme', {}, true],
      ['read_screen', { id: 'A' }, false],
      ['read_screen', { id: 'B' }, false],
      ['read_screen', { id: 'C' }, false],
    ]);
  });

  it('gives the same calls when the assembled response is parsed again after serialisation', () => {
    const assembled = gemini.assembleStream(streamChunks());
    const again = JSON.parse(JSON.stringify(assembled)) as unknown;
    expect(gemini.parseResponse(again, names).calls).toEqual(gemini.parseResponse(assembled, names).calls);
  });

  it('joins unsigned text pieces but never appends to a signed one', () => {
    const chunk = (part: Part) => ({ candidates: [{ content: { role: 'model', parts: [part] } }] });
    const assembled = gemini.assembleStream([
      chunk({ text: 'Hel' }),
      chunk({ text: 'lo', thoughtSignature: 'sig-1' }),
      chunk({ text: ' there' }),
      chunk({ text: '' }),
    ]) as { candidates: Array<{ content: unknown }> };
    expect(assembled.candidates[0]!.content).toEqual({
      role: 'model',
      parts: [{ text: 'Hel' }, { text: 'lo', thoughtSignature: 'sig-1' }, { text: ' there' }],
    });
  });
  it('keeps a signature that arrives with a later piece of a streamed call on that call', () => {
    const chunk = (part: Part) => ({ candidates: [{ content: { role: 'model', parts: [part] } }] });
    const assembled = gemini.assembleStream([
      chunk({ functionCall: { name: 'read_screen', willContinue: true } }),
      chunk({
        functionCall: { partialArgs: [{ jsonPath: '$.id', stringValue: 'Z' }], willContinue: true },
        thoughtSignature: 'sig-2',
      }),
      chunk({ functionCall: {} }),
    ]) as { candidates: Array<{ content: unknown }> };
    expect(assembled.candidates[0]!.content).toEqual({
      role: 'model',
      parts: [{ functionCall: { name: 'read_screen', args: { id: 'Z' } }, thoughtSignature: 'sig-2' }],
    });
  });
});

describe('Gemini toolResultMessages', () => {
  it('answers each call with a functionResponse under the name Gemini used', () => {
    const offered = gemini.toolDeclarations([spec('mcp.github.search')]).names;
    const body = modelTurn([{ functionCall: { name: 'mcp_github_search', args: { q: 'x' } } }]);
    const turn = gemini.parseResponse(body, offered).assistantTurn;
    const laterNames = buildNameMap(['mcp.github.search', 'mcp_github_search'], gemini.nameRules);
    const callId = gemini.parseResponse(body, offered).calls[0]!.call.id;
    expect(
      gemini.toolResultMessages(
        turn,
        [{ callId, outcome: 'result', result: textResult(callId, '3 hits') }],
        laterNames,
      ),
    ).toEqual([
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'mcp_github_search', response: { output: '3 hits' } } }],
      },
    ]);
  });

  it('echoes the id of a call only when Gemini issued it', () => {
    const body = modelTurn([{ functionCall: { id: 'fc-9', name: 'weather', args: {} } }]);
    const turn = gemini.parseResponse(body, names).assistantTurn;
    expect(gemini.toolResultMessages(turn, [{ callId: 'fc-9', outcome: 'denied' }], names)).toEqual([
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'fc-9',
              name: 'weather',
              response: { error: 'Denied: this tool call was not approved and did not run.' },
            },
          },
        ],
      },
    ]);
  });

  it('answers a call to an unknown tool under the name the model used', () => {
    const body = modelTurn([{ functionCall: { name: 'launch_rockets', args: {} } }]);
    const { calls, assistantTurn } = gemini.parseResponse(body, names);
    const message = calls[0]!.error!.message;
    expect(
      gemini.toolResultMessages(
        assistantTurn,
        [{ callId: calls[0]!.call.id, outcome: 'invalid', message }],
        names,
      ),
    ).toEqual([
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              name: 'launch_rockets',
              response: {
                error:
                  'Invalid: this tool call was rejected before it ran. Reason: The model called "launch_rockets", which is not one of the tools offered for this run.',
              },
            },
          },
        ],
      },
    ]);
  });
});

describe('Gemini round trip', () => {
  it('replays the streamed turn with the signature byte for byte on the first call only', () => {
    const { calls, assistantTurn } = gemini.parseResponse(gemini.assembleStream(streamChunks()), names);
    const contents = [
      ...gemini.renderAssistantTurn(assistantTurn, names),
      ...gemini.toolResultMessages(
        assistantTurn,
        calls.map(({ call }) => ({
          callId: call.id,
          outcome: 'result',
          result: textResult(call.id, `ok ${call.name}`),
        })),
        names,
      ),
    ] as Array<{ role: string; parts: Part[] }>;
    const signed = contents[0]!.parts.flatMap((part, i) => (part.thoughtSignature === undefined ? [] : [i]));
    expect([signed, JSON.stringify(contents[0]!.parts[1]!.thoughtSignature), contents[1]]).toEqual([
      [1],
      JSON.stringify(signatureOfChunk(1)),
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'read_theme', response: { output: 'ok read_theme' } } },
          { functionResponse: { name: 'read_screen', response: { output: 'ok read_screen' } } },
          { functionResponse: { name: 'read_screen', response: { output: 'ok read_screen' } } },
          { functionResponse: { name: 'read_screen', response: { output: 'ok read_screen' } } },
        ],
      },
    ]);
  });

  it('replays a whole-response turn exactly as received', () => {
    const body = fixtureJson(SINGLE);
    const content = (body.candidates as Array<{ content: unknown }>)[0]!.content;
    const turn = gemini.parseResponse(body, names).assistantTurn;
    expect(JSON.stringify(gemini.renderAssistantTurn(turn, names))).toBe(JSON.stringify([content]));
  });
});
