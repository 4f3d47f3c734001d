import { type Client, createClient } from 'graphql-ws';
import { describe, expect, onTestFinished } from 'vitest';
import WebSocket from 'ws';
import { type Node, startNode } from '../../support/extension.js';
import { dbTest } from '../../support/fixtures.js';
import { waitFor } from '../../support/lifecycle.js';

/**
 * Two server "processes" over one database: the token is revoked (or expires) through one, and the
 * subscriptions it holds open on the other end within a few check intervals (tests check every
 * 200 ms; production every TOKEN_CHECK_INTERVAL_MS).
 */
const test = dbTest.extend<{ nodes: { a: Node; b: Node } }>({
  nodes: async ({ testDb }, use) => {
    const a = await startNode(testDb, true);
    const b = await startNode(testDb, true);
    await use({ a, b });
  },
});

const SUBSCRIPTIONS = {
  approvalQueue: 'subscription { approvalQueue { id status } }',
  journalEvents: 'subscription { journalEvents { seq type } }',
} as const;

interface Ending {
  /** Every result the stream delivered, the last one included. */
  results: Array<{ data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> }>;
  completed: boolean;
  /** graphql-ws only: how the server closed the socket. */
  close?: { code: number; reason: string };
}

/** A graphql-ws subscription on `url`, with the token in connection_init; resolves once it is running. */
async function overWs(url: string, secret: string, query: string): Promise<Ending> {
  const ending: Ending = { results: [], completed: false };
  let client: Client | null = null;
  const connected = new Promise<void>((resolve) => {
    client = createClient({
      url: url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${secret}` },
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => {},
      on: {
        connected: () => resolve(),
        closed: (event) => {
          const { code, reason } = event as { code: number; reason: string };
          ending.close = { code, reason };
        },
      },
    });
  });
  onTestFinished(() => client?.dispose());
  await connected;
  client!.subscribe(
    { query },
    {
      next: (value) => void ending.results.push(value as Ending['results'][number]),
      error: () => {},
      complete: () => {
        ending.completed = true;
      },
    },
  );
  return ending;
}

/** An SSE subscription (`Accept: text/event-stream`, token in the Authorization header). */
async function overSse(url: string, secret: string, query: string): Promise<Ending> {
  const ending: Ending = { results: [], completed: false };
  const controller = new AbortController();
  onTestFinished(() => controller.abort());
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: `Bearer ${secret}`,
    },
    body: JSON.stringify({ query }),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  void (async () => {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
        let end = text.indexOf('\n\n');
        while (end >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const event = /^event: (\w+)/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event === 'complete') ending.completed = true;
          else if (data) ending.results.push(JSON.parse(data));
          end = text.indexOf('\n\n');
        }
      }
    } catch {}
  })();
  return ending;
}

const transports = { 'graphql-ws': overWs, SSE: overSse } as const;

/** The stream's last result: the reason its token ended, as an UNAUTHENTICATED error. */
const lastError = (ending: Ending) => {
  const last = ending.results.at(-1);
  return last?.errors?.map((e) => ({ message: e.message, code: e.extensions?.code }));
};

const ENDS_WITHIN_MS = 5_000;

describe.each(Object.entries(transports))('over %s', (transport, subscribe) => {
  describe.each(Object.entries(SUBSCRIPTIONS))('%s', (_field, query) => {
    test('revoking the token on another process ends the subscription with "token revoked"', async ({
      nodes,
    }) => {
      const { secret, token } = await nodes.a.services.tokens.create({
        name: 'dashboard',
        role: 'APPROVER',
        users: ['u1'],
      });
      const ending = await subscribe(nodes.b.url, secret, query);
      // graphql-ws holds the socket and the subscription; SSE the subscription.
      await waitFor(async () => nodes.b.services.tokenWatch.size === (transport === 'SSE' ? 1 : 2));

      const revoked = await nodes.a.gql(
        (await nodes.a.services.tokens.create({ name: 'root', role: 'ADMIN' })).secret,
        `mutation { revokeApiToken(id: "${token.id}") }`,
      );
      expect(revoked.data).toEqual({ revokeApiToken: true });

      await waitFor(async () => ending.completed, ENDS_WITHIN_MS);
      expect(lastError(ending)).toEqual([{ message: 'token revoked', code: 'UNAUTHENTICATED' }]);
      if (transport === 'graphql-ws') {
        await waitFor(async () => ending.close, ENDS_WITHIN_MS);
        expect(ending.close).toEqual({ code: 4401, reason: 'token revoked' });
      }
      expect(nodes.b.services.tokenWatch.size).toBe(0);
    });

    test('the token expiring ends the subscription with "token expired"', async ({ nodes }) => {
      const { secret } = await nodes.a.services.tokens.create({
        name: 'short-lived',
        role: 'APPROVER',
        users: ['u1'],
        expiresAt: new Date(Date.now() + 2_500),
      });
      const ending = await subscribe(nodes.b.url, secret, query);
      // graphql-ws holds the socket and the subscription; SSE the subscription.
      await waitFor(async () => nodes.b.services.tokenWatch.size === (transport === 'SSE' ? 1 : 2));
      expect(ending.completed).toBe(false);

      await waitFor(async () => ending.completed, 2_500 + ENDS_WITHIN_MS);
      expect(lastError(ending)).toEqual([{ message: 'token expired', code: 'UNAUTHENTICATED' }]);
      if (transport === 'graphql-ws') {
        await waitFor(async () => ending.close, ENDS_WITHIN_MS);
        expect(ending.close).toEqual({ code: 4401, reason: 'token expired' });
      }
    });
  });
});

describe('other tokens', () => {
  test("revoking one token leaves another token's subscriptions open", async ({ nodes }) => {
    const mine = await nodes.a.services.tokens.create({ name: 'mine', role: 'VIEWER', users: ['u1'] });
    const other = await nodes.a.services.tokens.create({ name: 'other', role: 'VIEWER', users: ['u1'] });
    const ended = await overWs(nodes.b.url, mine.secret, SUBSCRIPTIONS.journalEvents);
    const open = await overWs(nodes.b.url, other.secret, SUBSCRIPTIONS.journalEvents);
    await waitFor(async () => nodes.b.services.tokenWatch.size === 4);

    await nodes.a.services.tokens.revoke(mine.token.id);
    await waitFor(async () => ended.close, ENDS_WITHIN_MS);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(open).toEqual({ results: [], completed: false });
    expect(nodes.b.services.tokenWatch.size).toBe(2);
  });
});

describe('rotation', () => {
  test('a subscription opened with the old secret ends when the overlap does; one opened with the new goes on', async ({
    nodes,
  }) => {
    const { secret: old, token } = await nodes.a.services.tokens.create({
      name: 'rolling',
      role: 'VIEWER',
      users: ['u1'],
    });
    const { secret: fresh } = await nodes.a.services.tokens.rotate(token.id, { overlapSeconds: 2 });
    const withOld = await overWs(nodes.b.url, old, SUBSCRIPTIONS.journalEvents);
    const withNew = await overWs(nodes.b.url, fresh, SUBSCRIPTIONS.journalEvents);
    await waitFor(async () => nodes.b.services.tokenWatch.size === 4);

    await waitFor(async () => withOld.completed, 2_000 + ENDS_WITHIN_MS);
    expect(lastError(withOld)).toEqual([{ message: 'token secret rotated out', code: 'UNAUTHENTICATED' }]);
    await waitFor(async () => withOld.close, ENDS_WITHIN_MS);
    expect(withOld.close).toEqual({ code: 4401, reason: 'token secret rotated out' });
    expect(withNew).toEqual({ results: [], completed: false });
  });
});
