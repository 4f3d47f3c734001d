import type { Client } from 'graphql-ws';
import { describe, expect } from 'vitest';
import type { TransportLimits } from '../../src/graphql/rate-limits.js';
import { createGraphQLHandler, type Yoga } from '../../src/graphql/yoga.js';
import { firstResult, serverTest as test, wsClient } from '../support/app-server.js';
import { newRun, waitFor } from '../support/lifecycle.js';

const limits = (own: Partial<TransportLimits>): TransportLimits => ({
  requestsPerMinute: 1200,
  burst: 100,
  subscriptionsPerToken: 50,
  ...own,
});

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { data?: unknown; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
}

/** `{ me { role } }` over real HTTP (a URL) or in-process (a yoga instance). */
async function post(target: string | Yoga, token: string | null): Promise<Answer> {
  const init = {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query: '{ me { role } }' }),
  };
  const response =
    typeof target === 'string'
      ? await fetch(target, init)
      : await target.fetch('http://localhost/graphql', init);
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: await response.json(),
  };
}

const codes = (answers: Answer[]) => answers.map((a) => a.body.errors?.[0]?.extensions?.code ?? 'OK');

describe('request rate per token', () => {
  test('past the minute allowance a request is refused RATE_LIMITED with a retry hint and HTTP 429', async ({
    services,
    tokens,
  }) => {
    const yoga = createGraphQLHandler(services, { limits: limits({ requestsPerMinute: 3 }) });
    const answers: Answer[] = [];
    for (let i = 0; i < 4; i += 1) answers.push(await post(yoga, tokens.ADMIN));
    expect(codes(answers)).toEqual(['OK', 'OK', 'OK', 'RATE_LIMITED']);
    const refused = answers[3]!;
    expect(refused.status).toBe(429);
    const retryAfterMs = refused.body.errors![0]!.extensions!.retryAfterMs as number;
    expect(retryAfterMs).toBeGreaterThan(0);
    expect(retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(refused.retryAfter).toBe(String(Math.ceil(retryAfterMs / 1000)));
    expect(refused.body.errors![0]!.extensions).not.toHaveProperty('http');
  });

  test('past the burst a request is refused within the second, with a retry hint of at most a second', async ({
    services,
    tokens,
  }) => {
    const yoga = createGraphQLHandler(services, { limits: limits({ burst: 2 }) });
    const answers = await Promise.all([1, 2, 3].map(() => post(yoga, tokens.ADMIN)));
    expect(codes(answers).sort()).toEqual(['OK', 'OK', 'RATE_LIMITED']);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.body.errors![0]!.extensions!.retryAfterMs).toBeLessThanOrEqual(1000);
  });

  test('another token is unaffected by one that used up its allowance', async ({ services, tokens }) => {
    const yoga = createGraphQLHandler(services, { limits: limits({ requestsPerMinute: 1 }) });
    await post(yoga, tokens.ADMIN);
    expect(codes([await post(yoga, tokens.ADMIN), await post(yoga, tokens.VIEWER)])).toEqual([
      'RATE_LIMITED',
      'OK',
    ]);
  });

  test('requests without a token are limited per client address, apart from the tokens sent from it', async ({
    serve,
    tokens,
  }) => {
    const url = await serve({ limits: limits({ requestsPerMinute: 2 }) });
    const answers = [
      await post(url, null),
      await post(url, null),
      await post(url, null),
      await post(url, tokens.ADMIN),
    ];
    expect(codes(answers)).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED', 'RATE_LIMITED', 'OK']);
  });

  test('over graphql-ws the refusal is the operation’s error, and the socket stays open', async ({
    serve,
    tokens,
  }) => {
    const client = wsClient(await serve({ limits: limits({ requestsPerMinute: 1 }) }), {
      authorization: `Bearer ${tokens.ADMIN}`,
    });
    const me = { query: '{ me { role } }' };
    const results = [await firstResult(client, me), await firstResult(client, me)];
    expect(results[0]).toEqual({ data: { me: { role: 'ADMIN' } } });
    expect(results[1]?.errors).toEqual([
      expect.objectContaining({ extensions: { code: 'RATE_LIMITED', retryAfterMs: expect.any(Number) } }),
    ]);
  });
});

describe('open subscriptions per token', () => {
  const EVENTS = { query: 'subscription { journalEvents(afterSeq: "0") { seq } }' };

  /** Opens a subscription and waits for its first event: from then on it counts. */
  async function hold(client: Client) {
    const iterator = client.iterate(EVENTS)[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({
      data: { journalEvents: { seq: expect.stringMatching(/^[1-9]\d*$/) } },
    });
    return iterator;
  }

  test('past the most a token may hold open, a subscription is refused RATE_LIMITED; ending one makes room', async ({
    serve,
    services,
    tokens,
  }) => {
    await newRun(services);
    const url = await serve({ limits: limits({ subscriptionsPerToken: 2 }) });
    const bearer = { authorization: `Bearer ${tokens.ADMIN}` };
    const first = await hold(wsClient(url, bearer));
    await hold(wsClient(url, bearer));
    const third = await firstResult(wsClient(url, bearer), EVENTS);
    expect(third?.errors).toEqual([
      expect.objectContaining({ extensions: { code: 'RATE_LIMITED', maxSubscriptions: 2 } }),
    ]);
    await first.return?.();
    const again = wsClient(url, bearer);
    await waitFor(async () => (await firstResult(again, EVENTS))?.data);
  });

  test("another token's subscriptions do not count against it", async ({ serve, services, tokens }) => {
    await newRun(services);
    const url = await serve({ limits: limits({ subscriptionsPerToken: 1 }) });
    await hold(wsClient(url, { authorization: `Bearer ${tokens.ADMIN}` }));
    expect(await firstResult(wsClient(url, { authorization: `Bearer ${tokens.VIEWER}` }), EVENTS)).toEqual({
      data: { journalEvents: { seq: expect.stringMatching(/^[1-9]\d*$/) } },
    });
  });

  test('a subscription that was refused by the schema holds no place', async ({
    serve,
    services,
    tokens,
  }) => {
    await newRun(services);
    const url = await serve({ limits: limits({ subscriptionsPerToken: 1 }) });
    const client = wsClient(url, { authorization: `Bearer ${tokens.ADMIN}` });
    const forbidden = { query: 'subscription { extensionInvocations { callId } }' };
    const refusals = [await firstResult(client, forbidden), await firstResult(client, forbidden)];
    expect(refusals.map((r) => r?.errors?.[0]?.extensions?.code)).toEqual(['FORBIDDEN', 'FORBIDDEN']);
    await hold(client);
  });
});
