import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { graphqlOver, type ServerProcess, startServer } from '../support/server-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'ats-start-'));
const running: ServerProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop()));
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(env: Record<string, string>) {
  const server = await startServer(env);
  running.push(server);
  return server;
}

function wsQuery(url: string, token: string | null, query: string) {
  const client = createClient({
    url: url.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: true,
  });
  return new Promise<unknown>((resolve, reject) => {
    let result: unknown;
    client.subscribe(
      { query },
      {
        next: (value) => {
          result = value;
        },
        error: (error) => {
          void client.dispose();
          reject(error);
        },
        complete: () => {
          void client.dispose();
          resolve(result);
        },
      },
    );
  });
}

describe('npm start on the embedded database', () => {
  let adminToken = '';
  let server: ServerProcess;

  it('starts on a fresh DATA_DIR, migrates, and prints the URL and a first admin token', async () => {
    server = await start({ DATA_DIR: dataDir });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/graphql$/);
    const match = /First start: an admin token was created[^\n]*\n\s+(ats_\S+)/.exec(server.output());
    expect(match).not.toBeNull();
    adminToken = match![1]!;
  });

  it('answers /health once the database is ready', async () => {
    const response = await fetch(`${server.origin}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('serves GraphiQL to a browser at /graphql without any CDN', async () => {
    const response = await fetch(server.url, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('<title>Agent Tool System</title>');
    expect(html).not.toMatch(/unpkg\.com|jsdelivr/);
  });

  it('authenticates the printed admin token over HTTP', async () => {
    const res = await graphqlOver(server.url, adminToken, '{ me { role name } }');
    expect(res.data).toEqual({ me: { role: 'ADMIN', name: 'bootstrap-admin' } });
  });

  it('refuses a request without a token with UNAUTHENTICATED', async () => {
    const res = await graphqlOver(server.url, null, '{ tools { edges { node { name } } } }');
    expect(res.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
  });

  it('refuses a simple cross-site GET that carries no token or CSRF header', async () => {
    const response = await fetch(`${server.url}?query=${encodeURIComponent('{ me { role } }')}`);
    expect(response.status).toBe(403);
  });

  it('rejects an oversized body with 413 before parsing it', async () => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ query: '{ me { role } }', variables: { pad: 'x'.repeat(2 * 1024 * 1024) } }),
    });
    expect(response.status).toBe(413);
  });

  it('rejects a query with more aliases than the limit', async () => {
    const aliases = Array.from({ length: 16 }, (_, i) => `a${i}: me { role }`).join(' ');
    const res = await graphqlOver(server.url, adminToken, `{ ${aliases} }`);
    expect(res.data).toBeUndefined();
    expect(res.errors![0]!.message).toMatch(/aliases/i);
  });

  it('runs operations over graphql-ws on the same port and path, authenticated in connection_init', async () => {
    const result = await wsQuery(server.url, adminToken, '{ me { role } }');
    expect(result).toEqual({ data: { me: { role: 'ADMIN' } } });
  });

  it('closes a graphql-ws connection whose connection_init has no valid token (4403)', async () => {
    await expect(wsQuery(server.url, 'ats_wrong', '{ me { role } }')).rejects.toMatchObject({ code: 4403 });
  });

  it('stops on SIGTERM and restarts on the same data without minting another admin token', async () => {
    await server.stop();
    server = await start({ DATA_DIR: dataDir });
    expect(server.output()).not.toContain('First start');
    const res = await graphqlOver(server.url, adminToken, '{ me { role } }');
    expect(res.data).toEqual({ me: { role: 'ADMIN' } });
    await server.stop();
  });

  it('accepts exactly the ADMIN_TOKEN secret as an admin token', async () => {
    server = await start({ DATA_DIR: dataDir, ADMIN_TOKEN: 'operator-chosen-secret-123' });
    const res = await graphqlOver(server.url, 'operator-chosen-secret-123', '{ me { role } }');
    expect(res.data).toEqual({ me: { role: 'ADMIN' } });
    await server.stop();
  });

  it('refuses to start on a bad configuration and names the variable', async () => {
    await expect(startServer({ DATA_DIR: dataDir, PORT: 'not-a-port' })).rejects.toThrow(/PORT: /);
  });
});
