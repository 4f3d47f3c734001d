import { pino } from 'pino';
import { test as base, describe, expect } from 'vitest';
import type { ModelConnection } from '../../../src/features/models/connection-input.js';
import { ProviderClient } from '../../../src/features/models/http/client.js';
import { adapterFor } from '../../../src/model/providers/index.js';
import type { ProviderKind } from '../../../src/model/providers/types.js';
import { type FakeProvider, fakeProviderFixtures } from '../../support/fake-provider.js';
import { providerFixture, providerStream } from '../../support/model-loop.js';

const test = base.extend<{ fakeProviderFile: FakeProvider; fakeProvider: FakeProvider }>(
  fakeProviderFixtures,
);

const connection = (provider: FakeProvider, format: ProviderKind): ModelConnection => ({
  name: 'recorded',
  wireFormat: format,
  baseUrl: provider.baseUrl,
  model: 'm',
  sampling: {},
  timeoutMs: 5_000,
  apiKey: null,
  headers: {},
  createdAt: new Date(),
  updatedAt: new Date(),
});

/** Real providers' streams (test/fixtures/providers, see SOURCES.md), framed as each one sends them. */
const recordings: Array<{ format: ProviderKind; sse: string; events: unknown[]; usage: unknown }> = [
  {
    format: 'OPENAI_CHAT',
    usage: { inputTokens: 149, outputTokens: 60, reasoningTokens: 0 },
    sse: providerFixture('openai-chat-completion-parallel-tool_calls.stream.sse'),
    events: providerFixture('openai-chat-completion-parallel-tool_calls.stream.sse')
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice('data: '.length)) as unknown),
  },
  {
    format: 'OPENAI_RESPONSES',
    usage: { inputTokens: 134, outputTokens: 28, reasoningTokens: 0 },
    events: providerStream('openai-responses-reasoning-function_call.stream.jsonl', [0, 56]),
    sse: providerStream('openai-responses-reasoning-function_call.stream.jsonl', [0, 56])
      .map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`)
      .join(''),
  },
  {
    format: 'GEMINI',
    // Gemini counts its thoughts apart from the candidates; output holds both (58 + 183).
    usage: { inputTokens: 249, outputTokens: 241, reasoningTokens: 183 },
    events: providerStream('gemini-streamGenerateContent-thought-parallel-functionCall.stream.jsonl'),
    sse: providerStream('gemini-streamGenerateContent-thought-parallel-functionCall.stream.jsonl')
      .map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`)
      .join(''),
  },
];

describe.each(recordings)('a recorded $format stream', ({ format, sse, events, usage }) => {
  test('read over HTTP gives the response submitModelResponse assembles from the same events', async ({
    fakeProvider,
  }) => {
    fakeProvider.script({ kind: 'raw', contentType: 'text/event-stream', body: sse });
    const client = new ProviderClient(pino({ level: 'silent' }));
    const result = await client.send(connection(fakeProvider, format), { input: [] });
    expect(result.response).toEqual(adapterFor(format).assembleStream(events));
    expect(result.attempts).toBe(1);
    expect(result.usage).toEqual(usage);
  });
});
