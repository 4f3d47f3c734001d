import { describe, expect } from 'vitest';
import WebSocket from 'ws';
import { firstResult, serverTest as test, wsClient } from '../support/app-server.js';
import { newRun } from '../support/lifecycle.js';

const EVENTS = { query: 'subscription { journalEvents(afterSeq: "0") { seq type } }' };
const FIRST_EVENT = {
  data: { journalEvents: { seq: expect.stringMatching(/^[1-9]\d*$/), type: 'RUN_STARTED' } },
};

describe('graphql-ws authentication', () => {
  test.for([
    ['authorization', (bearer: string) => ({ authorization: bearer })],
    ['Authorization', (bearer: string) => ({ Authorization: bearer })],
    ['headers.Authorization', (bearer: string) => ({ headers: { Authorization: bearer } })],
    ['headers.authorization', (bearer: string) => ({ headers: { authorization: bearer } })],
  ] as const)(
    'a token in connectionParams.%s subscribes',
    async ([, params], { serve, services, tokens }) => {
      await newRun(services);
      const client = wsClient(await serve(), params(`Bearer ${tokens.ADMIN}`));
      expect(await firstResult(client, EVENTS)).toEqual(FIRST_EVENT);
    },
  );

  test("an empty connection_init and the token in the operation's extensions.headers (GraphiQL's Headers tab) subscribes", async ({
    serve,
    services,
    tokens,
  }) => {
    await newRun(services);
    const client = wsClient(await serve(), {});
    const request = { ...EVENTS, extensions: { headers: { Authorization: `Bearer ${tokens.ADMIN}` } } };
    expect(await firstResult(client, request)).toEqual(FIRST_EVENT);
  });

  test("the operation's extensions.headers token is the one that counts, over the connection's", async ({
    serve,
    tokens,
  }) => {
    const client = wsClient(await serve(), { authorization: `Bearer ${tokens.VIEWER}` });
    const request = {
      query: '{ me { role } }',
      extensions: { headers: { authorization: `Bearer ${tokens.ADMIN}` } },
    };
    expect(await firstResult(client, request)).toEqual({ data: { me: { role: 'ADMIN' } } });
  });

  test('a connection without any token connects, and its subscription fails UNAUTHENTICATED', async ({
    serve,
  }) => {
    const client = wsClient(await serve());
    const result = await firstResult(client, EVENTS);
    expect(result?.errors).toEqual([expect.objectContaining({ extensions: { code: 'UNAUTHENTICATED' } })]);
  });

  test('a revoked token in connection_init is closed 4403 saying it was revoked', async ({
    serve,
    services,
  }) => {
    const { secret, token } = await services.tokens.create({ name: 'gone', role: 'ADMIN' });
    await services.tokens.revoke(token.id);
    const client = wsClient(await serve(), { headers: { Authorization: `Bearer ${secret}` } });
    await expect(firstResult(client, EVENTS)).rejects.toMatchObject({
      code: 4403,
      reason: 'this token was revoked',
    });
  });

  test('an unknown token in connection_init is closed 4403 saying it is not known', async ({ serve }) => {
    const client = wsClient(await serve(), { authorization: 'Bearer not-a-token' });
    await expect(firstResult(client, EVENTS)).rejects.toMatchObject({
      code: 4403,
      reason: 'this token is not known to this server (mistyped, or a secret rotated out)',
    });
  });

  test("a revoked token in an operation's extensions.headers fails that operation UNAUTHENTICATED with the reason", async ({
    serve,
    services,
  }) => {
    const { secret, token } = await services.tokens.create({ name: 'gone', role: 'ADMIN' });
    await services.tokens.revoke(token.id);
    const client = wsClient(await serve(), {});
    const result = await firstResult(client, {
      ...EVENTS,
      extensions: { headers: { Authorization: `Bearer ${secret}` } },
    });
    expect(result?.errors).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('this token was revoked'),
        extensions: { code: 'UNAUTHENTICATED' },
      }),
    ]);
  });
});

describe('WebSocket origins', () => {
  const upgrade = (url: string, origin?: string) =>
    new Promise<number>((resolve) => {
      const socket = new WebSocket(
        url.replace(/^http/, 'ws'),
        'graphql-transport-ws',
        origin ? { origin } : {},
      );
      socket.on('open', () => {
        socket.close();
        resolve(101);
      });
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    });

  test('a page of another origin cannot open a socket', async ({ serve }) => {
    expect(await upgrade(await serve(), 'https://evil.example')).toBe(401);
  });

  test('a page of the server itself, an allowed origin, and a client without an Origin can', async ({
    serve,
  }) => {
    const url = await serve({ allowedOrigins: ['https://dash.example'] });
    expect([
      await upgrade(url, new URL(url).origin),
      await upgrade(url, 'https://dash.example'),
      await upgrade(url),
    ]).toEqual([101, 101, 101]);
  });
});
