import { type AddressInfo, createServer } from 'node:net';
import { pino } from 'pino';
import { test as base, describe, expect } from 'vitest';
import type { ModelConnection } from '../../../src/features/models/connection-input.js';
import { ProviderClient } from '../../../src/features/models/http/client.js';
import { ModelRequestError } from '../../../src/features/models/http/errors.js';
import type { ModelDelta } from '../../../src/features/models/http/stream-events.js';
import type { ProviderKind } from '../../../src/model/providers/types.js';
import {
  answer,
  conversations,
  type FakeProvider,
  type FakeTurn,
  fakeProviderFixtures,
  status,
} from '../../support/fake-provider.js';

const KEY = 'sk-test-SECRET-key-0123456789';
const HEADER_SECRET = 'header-SECRET-value';
const FORMATS: ProviderKind[] = ['OPENAI_CHAT', 'OPENAI_RESPONSES', 'ANTHROPIC', 'GEMINI'];
const POLICY = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 40, maxRetryAfterMs: 5_000 };

const turn: FakeTurn = {
  text: 'Reading both files.',
  calls: [
    { id: 'call_a', name: 'workspace_read_file', args: { path: 'plan/todo.md' } },
    { id: 'call_b', name: 'workspace_read_file', args: { path: 'notes/ideas.md' } },
  ],
  usage: { input: 12, output: 7, reasoning: 3 },
};

const test = base.extend<{
  fakeProviderFile: FakeProvider;
  fakeProvider: FakeProvider;
  logs: string[];
  client: ProviderClient;
}>({
  ...fakeProviderFixtures,
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads the destructuring to learn a fixture's dependencies.
  logs: async ({}, use) => {
    await use([]);
  },
  client: async ({ logs }, use) => {
    const logger = pino({ level: 'debug' }, { write: (line: string) => logs.push(line) });
    await use(new ProviderClient(logger, POLICY));
  },
});

function connection(provider: FakeProvider, format: ProviderKind, timeoutMs = 5_000): ModelConnection {
  return {
    name: 'fake',
    wireFormat: format,
    baseUrl: provider.baseUrl,
    model: 'fake-model',
    sampling: {},
    timeoutMs,
    apiKey: KEY,
    headers: { 'X-Extra': HEADER_SECRET },
    createdAt: new Date(),
    updatedAt: new Date(),
  };
}

const BODY = { messages: [{ role: 'user', content: 'hi' }] };

async function failure(promise: Promise<unknown>): Promise<ModelRequestError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ModelRequestError))
    throw new Error(`expected a ModelRequestError, got ${String(error)}`);
  return error;
}

describe.each(FORMATS)('%s over HTTP', (format) => {
  test('a streamed answer assembles into the response a non-streamed request gets, with the same usage', async ({
    fakeProvider,
    client,
  }) => {
    fakeProvider.script(answer({ ...turn, id: 't1' }), answer({ ...turn, id: 't1' }));
    const deltas: ModelDelta[] = [];
    const streamed = await client.send(connection(fakeProvider, format), BODY, {
      onDelta: (d) => deltas.push(d),
    });
    const whole = await client.send(connection(fakeProvider, format), BODY, { stream: false });
    expect(streamed.response).toEqual(whole.response);
    expect(streamed.usage).toEqual(whole.usage);
    expect(streamed.usage).toEqual({
      inputTokens: 12,
      outputTokens: 7,
      reasoningTokens: format === 'ANTHROPIC' ? null : 3,
    });
    expect(fakeProvider.requests.map((r) => r.stream)).toEqual([true, false]);
    const text = deltas.flatMap((d) => (d.kind === 'text' ? [d.text] : [])).join('');
    expect(text).toBe('Reading both files.');
    expect(
      deltas.filter((d) => d.kind === 'tool_call_start').map((d) => (d as { name: string }).name),
    ).toEqual(['workspace_read_file', 'workspace_read_file']);
  });

  test('a connection dropped mid-stream is retried and the second answer is returned', async ({
    fakeProvider,
    client,
  }) => {
    fakeProvider.script(conversations.droppedMidStream({ ...turn, id: 't2' }, 2));
    const deltas: ModelDelta[] = [];
    const result = await client.send(connection(fakeProvider, format), BODY, {
      onDelta: (d) => deltas.push(d),
    });
    fakeProvider.script(answer({ ...turn, id: 't2' }));
    const whole = await client.send(connection(fakeProvider, format), BODY, { stream: false });
    expect(result.attempts).toBe(2);
    expect(result.response).toEqual(whole.response);
    expect(deltas.filter((d) => d.kind === 'retry')).toEqual([
      { kind: 'retry', attempt: 1, delayMs: expect.any(Number), status: null, reason: expect.any(String) },
    ]);
  });
});

describe('retries', () => {
  test('a 429 is retried after the Retry-After the provider asked for', async ({ fakeProvider, client }) => {
    fakeProvider.script(conversations.rateLimited({ text: 'ok' }, 1));
    const result = await client.send(connection(fakeProvider, 'OPENAI_CHAT'), BODY);
    expect(result.attempts).toBe(2);
    const [first, second] = fakeProvider.requests;
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(1_000);
  });

  test('retry-after-ms is honoured as well', async ({ fakeProvider, client }) => {
    fakeProvider.script(status(429, { 'retry-after-ms': '300' }), answer({ text: 'ok' }));
    await client.send(connection(fakeProvider, 'ANTHROPIC'), BODY);
    const [first, second] = fakeProvider.requests;
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(300);
  });

  test('a 400 is not retried and fails with its status and the provider’s short reason', async ({
    fakeProvider,
    client,
  }) => {
    fakeProvider.script(
      status(400, {}, '{"error":{"type":"invalid_request_error","message":"messages: field required"}}'),
    );
    const error = await failure(client.send(connection(fakeProvider, 'ANTHROPIC'), BODY));
    expect(fakeProvider.requests).toHaveLength(1);
    expect(error).toMatchObject({
      kind: 'http_status',
      status: 400,
      reason: 'invalid_request_error: messages: field required',
      retryable: false,
      attempts: 1,
      message:
        'model request to fake failed after 1 attempt: HTTP 400: invalid_request_error: messages: field required',
    });
  });

  test('a 500 on every attempt spends the retries and fails with the last status', async ({
    fakeProvider,
    client,
  }) => {
    fakeProvider.always(() => status(500, {}, '{"error":{"type":"server_error","message":"boom"}}'));
    const error = await failure(client.send(connection(fakeProvider, 'GEMINI'), BODY));
    expect(fakeProvider.requests).toHaveLength(3);
    expect(error).toMatchObject({
      kind: 'http_status',
      status: 500,
      reason: 'server_error: boom',
      attempts: 3,
      retryable: true,
    });
  });

  test('a 500 followed by an answer succeeds on the second attempt', async ({ fakeProvider, client }) => {
    fakeProvider.script(conversations.serverError({ text: 'recovered' }));
    const result = await client.send(connection(fakeProvider, 'OPENAI_RESPONSES'), BODY);
    expect(result.attempts).toBe(2);
    expect(fakeProvider.requests).toHaveLength(2);
  });

  test('a Retry-After longer than the policy allows fails at once instead of waiting', async ({
    fakeProvider,
    client,
  }) => {
    fakeProvider.script(
      status(429, { 'retry-after': '3600' }, '{"error":{"type":"rate_limit_error","message":"quota"}}'),
    );
    const error = await failure(client.send(connection(fakeProvider, 'OPENAI_CHAT'), BODY));
    expect(fakeProvider.requests).toHaveLength(1);
    expect(error).toMatchObject({
      status: 429,
      reason: 'rate_limit_error: quota (asked to wait 3600s)',
      attempts: 1,
    });
  });

  test('a stream event that is not JSON is retried', async ({ fakeProvider, client }) => {
    fakeProvider.script(
      { kind: 'raw', contentType: 'text/event-stream', body: 'data: {"id":"x","choices":[{"index\n\n' },
      answer({ text: 'clean' }),
    );
    const result = await client.send(connection(fakeProvider, 'OPENAI_CHAT'), BODY);
    expect(result.attempts).toBe(2);
  });

  test('malformed chunks on every attempt fail as malformed_response', async ({ fakeProvider, client }) => {
    fakeProvider.always(() => ({
      kind: 'raw',
      contentType: 'text/event-stream',
      body: 'data: not json\n\n',
    }));
    const error = await failure(client.send(connection(fakeProvider, 'ANTHROPIC'), BODY));
    expect(error).toMatchObject({
      kind: 'malformed_response',
      reason: 'a stream event is not JSON',
      attempts: 3,
    });
  });

  test('a stream that ends before its last event is retried as incomplete', async ({
    fakeProvider,
    client,
  }) => {
    fakeProvider.always(() => ({
      kind: 'raw',
      contentType: 'text/event-stream',
      body: 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","content":[]}}\n\n',
    }));
    const error = await failure(client.send(connection(fakeProvider, 'ANTHROPIC'), BODY));
    expect(error).toMatchObject({
      kind: 'stream_error',
      status: null,
      reason: 'the stream ended before its last event',
      attempts: 3,
    });
  });

  test('an error event in the stream is retried and named by its type', async ({ fakeProvider, client }) => {
    fakeProvider.always(() => ({
      kind: 'raw',
      contentType: 'text/event-stream',
      body: 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    }));
    const error = await failure(client.send(connection(fakeProvider, 'ANTHROPIC'), BODY));
    expect(error).toMatchObject({
      kind: 'stream_error',
      reason: 'overloaded_error: Overloaded',
      attempts: 3,
    });
  });
});

describe('timeouts and cancellation', () => {
  test('aborting the signal aborts the request in flight: the provider sees its socket close', async ({
    fakeProvider,
    client,
  }) => {
    fakeProvider.script({ kind: 'hang' });
    const controller = new AbortController();
    const sent = client.send(connection(fakeProvider, 'OPENAI_CHAT'), BODY, { signal: controller.signal });
    await expect.poll(() => fakeProvider.requests.length).toBe(1);
    controller.abort();
    const error = await failure(sent);
    await fakeProvider.requests[0]!.closed;
    expect(fakeProvider.requests[0]!.closedEarly).toBe(true);
    expect(error).toMatchObject({ kind: 'cancelled', status: null, attempts: 1 });
    expect(fakeProvider.requests).toHaveLength(1);
  });

  test('a provider silent past the timeout is abandoned and retried, then fails as timeout', async ({
    fakeProvider,
    client,
  }) => {
    fakeProvider.always(() => ({ kind: 'hang' }));
    const error = await failure(client.send(connection(fakeProvider, 'GEMINI', 100), BODY));
    expect(fakeProvider.requests).toHaveLength(3);
    await Promise.all(fakeProvider.requests.map((r) => r.closed));
    expect(error).toMatchObject({ kind: 'timeout', reason: 'no answer for 100ms', attempts: 3 });
  });

  test('a refused connection is retried and fails as a connection error', async ({ client }) => {
    const unused = createServer();
    await new Promise<void>((resolve) => unused.listen(0, '127.0.0.1', resolve));
    const { port } = unused.address() as AddressInfo;
    await new Promise((resolve) => unused.close(resolve));
    const refused = connection({ baseUrl: `http://127.0.0.1:${port}/v1` } as FakeProvider, 'OPENAI_CHAT');
    const error = await failure(client.send(refused, BODY));
    expect(error).toMatchObject({ kind: 'connection', status: null, reason: 'ECONNREFUSED', attempts: 3 });
  });
});

describe('secrets', () => {
  test('no key or header value appears in errors or logs, even when the provider echoes the key', async ({
    fakeProvider,
    client,
    logs,
  }) => {
    fakeProvider.script(
      status(429, {}, JSON.stringify({ error: { type: 'rate_limit_error', message: `slow down ${KEY}` } })),
      status(
        401,
        {},
        JSON.stringify({
          error: {
            type: 'invalid_request_error',
            code: 'invalid_api_key',
            message: `Incorrect API key provided: ${KEY}. ${HEADER_SECRET}`,
          },
        }),
      ),
    );
    const error = await failure(client.send(connection(fakeProvider, 'OPENAI_CHAT'), BODY));
    expect(error).toMatchObject({
      status: 401,
      reason: 'invalid_request_error: Incorrect API key provided: [redacted]. [redacted]',
    });
    expect(fakeProvider.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    const captured = [error.message, error.reason, JSON.stringify(error), ...logs].join('\n');
    expect(logs).toHaveLength(2);
    expect(captured).not.toMatch(/SECRET/);
  });
});
