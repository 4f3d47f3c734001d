import { request } from 'node:http';
import { expect } from 'vitest';
import { serverTest as test } from '../support/app-server.js';

// Clients keep idle sockets for less than this (undici 4 s, load balancers about 60 s), so they end an idle socket first.
test('a response tells the client the server keeps its idle socket 65 s', async ({ serve, tokens }) => {
  const url = new URL(await serve());
  const body = JSON.stringify({ query: '{ me { role } }' });
  const header = await new Promise<string | undefined>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          authorization: `Bearer ${tokens.ADMIN}`,
          connection: 'keep-alive',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers['keep-alive'] as string | undefined));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  expect(header).toBe('timeout=65');
});
