import { describe, expect } from 'vitest';
import type { ProviderKind } from '../../../src/model/providers/types.js';
import { answer, type FakeProvider, fakeProviderFixtures } from '../../support/fake-provider.js';
import { runTest } from '../../support/fixtures.js';
import { agent } from '../../support/lifecycle.js';

const test = runTest.extend<{ fakeProviderFile: FakeProvider; fakeProvider: FakeProvider }>(
  fakeProviderFixtures,
);

const KEY = 'sk-test-SECRET-request-0123';

/** Per format: the sampling set on the connection and what it must add to the body, in this order. */
const cases: Array<{
  format: ProviderKind;
  sampling: Record<string, unknown>;
  path: string;
  auth: [string, string];
  wrap: (body: Record<string, unknown>) => Record<string, unknown>;
}> = [
  {
    format: 'OPENAI_CHAT',
    sampling: { temperature: 0.3, maxOutputTokens: 256 },
    path: '/v1/chat/completions',
    auth: ['authorization', `Bearer ${KEY}`],
    wrap: (body) => ({
      model: 'fake-model',
      ...body,
      temperature: 0.3,
      max_completion_tokens: 256,
      stream: true,
      stream_options: { include_usage: true },
    }),
  },
  {
    format: 'OPENAI_RESPONSES',
    sampling: { topP: 0.9, maxOutputTokens: 256 },
    path: '/v1/responses',
    auth: ['authorization', `Bearer ${KEY}`],
    wrap: (body) => ({ model: 'fake-model', ...body, top_p: 0.9, max_output_tokens: 256, stream: true }),
  },
  {
    format: 'ANTHROPIC',
    sampling: { temperature: 0.3 },
    path: '/v1/messages',
    auth: ['x-api-key', KEY],
    wrap: (body) => ({ model: 'fake-model', ...body, max_tokens: 4096, temperature: 0.3, stream: true }),
  },
  {
    format: 'GEMINI',
    sampling: { temperature: 0.3, maxOutputTokens: 256 },
    path: '/v1/models/fake-model:streamGenerateContent?alt=sse',
    auth: ['x-goog-api-key', KEY],
    wrap: (body) => ({ ...body, generationConfig: { temperature: 0.3, maxOutputTokens: 256 } }),
  },
];

describe.each(cases)('$format requests on the wire', ({ format, sampling, path, auth, wrap }) => {
  test('each round sends exactly the bytes of modelRequest plus the connection’s model and settings, and the streamed turn comes back byte for byte', async ({
    services,
    run,
    fakeProvider,
  }) => {
    const connection = await services.modelConnections.set(
      {
        name: 'fake',
        wireFormat: format,
        baseUrl: fakeProvider.baseUrl,
        model: 'fake-model',
        sampling,
        apiKey: KEY,
      },
      'test',
    );
    fakeProvider.script(
      answer({
        text: 'Let me look.',
        calls: [{ id: 'call_1', name: 'no_such_tool', args: { q: 'ß∑' } }],
        id: 'r1',
      }),
      answer({ text: 'Done.', id: 'r2' }),
    );
    const request = () =>
      services.models.modelRequest({ runId: run.id, provider: format, presetName: 'default' }, agent);

    const first = await request();
    const round1 = await services.providerClient.send(connection, first.body);
    const submitted = await services.models.submit(
      { runId: run.id, provider: format, response: round1.response },
      agent,
    );
    expect(submitted.calls.map((c) => [c.status, c.error?.code])).toEqual([['FAILED', 'unknown_tool']]);

    const second = await request();
    await services.providerClient.send(connection, second.body);

    const [sent1, sent2] = fakeProvider.requests;
    expect(sent1!.body).toBe(JSON.stringify(wrap(first.body)));
    expect(sent2!.body).toBe(JSON.stringify(wrap(second.body)));
    expect([sent1!.method, sent1!.path, sent1!.headers[auth[0]], sent1!.headers['content-type']]).toEqual([
      'POST',
      path,
      auth[1],
      'application/json',
    ]);
    // The assembled stream is stored as the provider sent it and replayed untouched in the next round.
    expect(JSON.stringify(second.body)).toContain(submitted.turn.native.slice(1, -1));
  });
});
