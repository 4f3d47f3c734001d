import { describe, expect } from 'vitest';
import { createGraphQLHandler } from '../../src/graphql/yoga.js';
import { dbTest as test } from '../support/fixtures.js';
import { newRun } from '../support/lifecycle.js';
import { parseSse } from '../support/sse.js';

const preflight = (origin: string) =>
  new Request('http://localhost/graphql', {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });

describe('CORS', () => {
  test('an allowed origin gets access-control-allow-origin naming it on preflight, and no credentials', async ({
    services,
  }) => {
    const yoga = createGraphQLHandler(services, { allowedOrigins: ['https://dash.example'] });
    const response = await yoga.fetch(preflight('https://dash.example'));
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://dash.example');
    expect(response.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });

  test('an origin that is not listed gets no CORS headers', async ({ services }) => {
    const yoga = createGraphQLHandler(services, { allowedOrigins: ['https://dash.example'] });
    const response = await yoga.fetch(preflight('https://evil.example'));
    expect([...response.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  test('by default no origin gets CORS headers, not even on a plain request', async ({
    services,
    tokens,
  }) => {
    const yoga = createGraphQLHandler(services);
    const response = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: {
        origin: 'https://dash.example',
        'content-type': 'application/json',
        authorization: `Bearer ${tokens.ADMIN}`,
      },
      body: JSON.stringify({ query: '{ me { role } }' }),
    });
    expect(await response.json()).toEqual({ data: { me: { role: 'ADMIN' } } });
    expect([...response.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});

describe('HTTP authentication', () => {
  test("an SSE subscription authenticates by the request's Authorization header", async ({
    yoga,
    services,
    tokens,
  }) => {
    await newRun(services);
    const response = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        authorization: `Bearer ${tokens.ADMIN}`,
      },
      body: JSON.stringify({ query: 'subscription { journalEvents(afterSeq: "0") { seq type } }' }),
    });
    const reader = response.body!.getReader();
    let text = '';
    while (parseSse(text).length === 0) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(parseSse(text)).toEqual([
      { data: { journalEvents: { seq: expect.stringMatching(/^[1-9]\d*$/), type: 'RUN_STARTED' } } },
    ]);
  });

  test("a token in an HTTP request's body (extensions.headers) counts for nothing: only the header does", async ({
    yoga,
    tokens,
  }) => {
    const response = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-graphql-yoga-csrf': '1' },
      body: JSON.stringify({
        query: '{ me { role } }',
        extensions: { headers: { Authorization: `Bearer ${tokens.ADMIN}` } },
      }),
    });
    const result = (await response.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
    expect(result.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);
  });
});
