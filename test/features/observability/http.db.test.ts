import { describe, expect } from 'vitest';
import { waitFor } from '../../support/lifecycle.js';
import { LEVEL, observedTest as test } from './observed.js';

const post = (url: string, query: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });

describe('request ids', () => {
  test('a response carries the x-request-id the client sent', async ({ serve }) => {
    const url = await serve();
    const response = await post(url, '{ __typename }', { 'x-request-id': 'trace-42.a:b_c' });
    expect(response.headers.get('x-request-id')).toBe('trace-42.a:b_c');
  });

  test('without one, or with one that is not a short token of safe characters, the server makes one', async ({
    serve,
  }) => {
    const url = await serve();
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect((await post(url, '{ __typename }')).headers.get('x-request-id')).toMatch(uuid);
    const forged = await post(url, '{ __typename }', { 'x-request-id': 'a b","level":60' });
    expect(forged.headers.get('x-request-id')).toMatch(uuid);
    const long = await post(url, '{ __typename }', { 'x-request-id': 'x'.repeat(129) });
    expect(long.headers.get('x-request-id')).toMatch(uuid);
  });

  test('/health answers with one too', async ({ serve }) => {
    const url = await serve();
    const response = await fetch(new URL('/health', url), { headers: { 'x-request-id': 'probe-1' } });
    expect(response.headers.get('x-request-id')).toBe('probe-1');
  });
});

describe('logs', () => {
  test('one access line per request at info: method, path, status, duration, request id and the token name, never the secret', async ({
    serve,
    tokens,
    logs,
  }) => {
    const url = await serve();
    await post(url, '{ me { name } }', { authorization: `Bearer ${tokens.VIEWER}`, 'x-request-id': 'req-1' });
    const access = await waitFor(async () =>
      logs.filter((l) => l.msg === 'request' && l.requestId === 'req-1'),
    );
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({
      level: LEVEL.info,
      method: 'POST',
      path: '/graphql',
      status: 200,
      token: 'test-viewer',
    });
    expect(typeof access[0]!.durationMs).toBe('number');
    expect(JSON.stringify(logs)).not.toContain(tokens.VIEWER);
  });

  test('every line written while a request is served carries its id', async ({ serve, logs }) => {
    const url = await serve();
    await post(url, '{ toolCall(id: "not-a-uuid") { id } }', { 'x-request-id': 'req-2' });
    await waitFor(async () => logs.some((l) => l.msg === 'request' && l.requestId === 'req-2'));
    const during = logs.filter((l) => l.requestId === 'req-2');
    expect(during.map((l) => l.msg)).toContain('request');
    expect(during.length).toBeGreaterThan(1);
  });

  test('client mistakes (NOT_FOUND, BAD_USER_INPUT, an unknown field) are logged at debug, refusals (FORBIDDEN, UNAUTHENTICATED) at info, none at error', async ({
    serve,
    tokens,
    logs,
  }) => {
    const url = await serve();
    const admin = { authorization: `Bearer ${tokens.ADMIN}` };
    const cases = [
      [
        'nf',
        'mutation { approveToolCall(id: "00000000-0000-4000-8000-00000000dead") { id } }',
        admin,
        'NOT_FOUND',
        LEVEL.debug,
      ],
      [
        'bad',
        'mutation { createRun(input: { profileId: "" }) { id } }',
        admin,
        'BAD_USER_INPUT',
        LEVEL.debug,
      ],
      ['unknown', '{ nope }', admin, 'GRAPHQL_VALIDATION_FAILED', LEVEL.debug],
      [
        'forbidden',
        'mutation { createRun(input: { profileId: "p1" }) { id } }',
        { authorization: `Bearer ${tokens.VIEWER}` },
        'FORBIDDEN',
        LEVEL.info,
      ],
      ['anon', '{ me { name } }', {}, 'UNAUTHENTICATED', LEVEL.info],
    ] as const;
    for (const [id, query, headers] of cases) await post(url, query, { ...headers, 'x-request-id': id });
    await waitFor(async () => logs.filter((l) => l.msg === 'request').length >= cases.length);
    for (const [id, , , code, level] of cases) {
      const lines = logs.filter((l) => l.requestId === id && 'code' in l);
      expect({ id, logged: lines.map((l) => [l.code, l.level]) }).toEqual({ id, logged: [[code, level]] });
    }
    expect(logs.filter((l) => l.level >= LEVEL.error)).toEqual([]);
  });
});
