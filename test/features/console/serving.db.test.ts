import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect } from 'vitest';
import { PAGE_POLICY, pagePolicy } from '../../../src/features/console/index.js';
import { serverTest } from '../../support/app-server.js';

const indexHtml =
  '<!doctype html><title>console</title><script src="/console/assets/app-abc123.js"></script>';
const appJs = `console.log(${JSON.stringify('x'.repeat(4000))});`;

/** A server over a console build of two files, and the origin it listens on. */
const test = serverTest.extend<{ origin: string; builtDir: string }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads the destructuring to learn a fixture's dependencies.
  builtDir: async ({}, use) => {
    const dir = mkdtempSync(join(tmpdir(), 'console-dist-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), indexHtml);
    writeFileSync(join(dir, 'assets', 'app-abc123.js'), appJs);
    await use(dir);
    rmSync(dir, { recursive: true, force: true });
  },
  origin: async ({ serve, builtDir }, use) => {
    await use(new URL(await serve({ consoleDir: builtDir })).origin);
  },
});

/** A GET through node:http (fetch would decompress on its own): the status, headers and bytes as sent. */
function raw(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ response: { status: number; headers: Headers }; body: Buffer }>((resolve, reject) => {
    get(url, { headers: { 'accept-encoding': 'identity', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (typeof value === 'string') responseHeaders.set(name, value);
        }
        resolve({
          response: { status: res.statusCode!, headers: responseHeaders },
          body: Buffer.concat(chunks),
        });
      });
      res.on('error', reject);
    }).on('error', reject);
  });
}

describe('the console page', () => {
  test('/ serves index.html, revalidated on every load', async ({ origin }) => {
    const { response, body } = await raw(`${origin}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(body.toString()).toBe(indexHtml);
  });

  test('/console and any path below it serve the same index.html (the page routes by hash)', async ({
    origin,
  }) => {
    for (const path of ['/console', '/console/', '/console/runs/r1']) {
      const { response, body } = await raw(`${origin}${path}`);
      expect({ path, status: response.status, body: body.toString() }).toEqual({
        path,
        status: 200,
        body: indexHtml,
      });
    }
  });

  test('a hashed asset is cached for a year as immutable', async ({ origin }) => {
    const { response, body } = await raw(`${origin}/console/assets/app-abc123.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(body.toString()).toBe(appJs);
  });

  test('an asset of an older build is a 404, not the page', async ({ origin }) => {
    const { response } = await raw(`${origin}/console/assets/app-old999.js`);
    expect(response.status).toBe(404);
  });

  test('brotli is sent to a client that accepts it', async ({ origin }) => {
    const { response, body } = await raw(`${origin}/console/assets/app-abc123.js`, {
      'accept-encoding': 'gzip, deflate, br',
    });
    expect(response.headers.get('content-encoding')).toBe('br');
    expect(response.headers.get('vary')).toBe('Accept-Encoding');
    expect(brotliDecompressSync(body).toString()).toBe(appJs);
  });

  test('gzip is sent to a client that accepts only gzip', async ({ origin }) => {
    const { response, body } = await raw(`${origin}/console/assets/app-abc123.js`, {
      'accept-encoding': 'gzip, br;q=0',
    });
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(body).toString()).toBe(appJs);
  });

  test('a client that accepts no encoding gets the bytes as they are', async ({ origin }) => {
    const { response, body } = await raw(`${origin}/console/assets/app-abc123.js`);
    expect(response.headers.get('content-encoding')).toBeNull();
    expect(body.toString()).toBe(appJs);
  });

  test('a request naming the ETag it has gets 304 with no body, in any encoding', async ({ origin }) => {
    const url = `${origin}/console/assets/app-abc123.js`;
    const first = await raw(url, { 'accept-encoding': 'br' });
    const etag = first.response.headers.get('etag')!;
    const again = await raw(url, { 'accept-encoding': 'gzip', 'if-none-match': etag });
    expect(again.response.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  test('a stale ETag gets the full file', async ({ origin }) => {
    const { response } = await raw(`${origin}/`, { 'if-none-match': '"something-else"' });
    expect(response.status).toBe(200);
  });

  test('without a build, the page is a 503 saying how to build it', async ({ serve }) => {
    const missing = join(tmpdir(), 'no-console-build-here');
    const origin = new URL(await serve({ consoleDir: missing })).origin;
    const { response, body } = await raw(`${origin}/`);
    expect(response.status).toBe(503);
    expect(body.toString()).toContain('npm run build:console');
  });

  test('a request for // is not a page and does not stop the server', async ({ origin }) => {
    const { response } = await raw(`${origin}//`, { accept: 'text/html' });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect((await raw(`${origin}/`)).response.status).toBe(200);
  });

  test.for(['/', '/console', '/console/assets/app-abc123.js'])(
    '%s is served with a strict CSP, no framing and no Referer',
    async (path, { origin }) => {
      const { response } = await raw(`${origin}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-security-policy')).toBe(PAGE_POLICY);
      expect(PAGE_POLICY).toContain("frame-ancestors 'none'");
      expect(PAGE_POLICY).toContain("script-src 'self';");
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    },
  );

  test('without an IdP, /console/sign-in.json says so and the page may fetch only from this server', async ({
    origin,
  }) => {
    const { response, body } = await raw(`${origin}/console/sign-in.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(JSON.parse(body.toString())).toEqual({ oidc: null });
    expect(PAGE_POLICY).toContain("connect-src 'self';");
  });

  test('with an IdP, /console/sign-in.json names it and the CSP lets the page reach its origin', async ({
    serve,
    builtDir,
  }) => {
    const signIn = {
      issuer: 'https://idp.example/realms/agents',
      clientId: 'approval-console',
      scope: 'openid profile email',
      resource: 'https://ats.example/',
      token: 'access_token' as const,
    };
    const origin = new URL(await serve({ consoleDir: builtDir, consoleSignIn: signIn })).origin;
    const { body } = await raw(`${origin}/console/sign-in.json`);
    expect(JSON.parse(body.toString())).toEqual({ oidc: signIn });
    const page = await raw(`${origin}/console/callback?code=c&state=s`);
    expect(page.response.status).toBe(200);
    expect(page.body.toString()).toBe(indexHtml);
    expect(page.response.headers.get('content-security-policy')).toBe(pagePolicy(['https://idp.example']));
    expect(pagePolicy(['https://idp.example'])).toContain("connect-src 'self' https://idp.example;");
  });

  test('the API is still answered at /graphql', async ({ origin, tokens }) => {
    const response = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.VIEWER}` },
      body: JSON.stringify({ query: '{ me { role } }' }),
    });
    expect(await response.json()).toEqual({ data: { me: { role: 'VIEWER' } } });
  });
});

describe('GraphiQL', () => {
  const page = async (origin: string) => {
    const { response, body } = await raw(`${origin}/graphql`, { accept: 'text/html' });
    return { response, html: body.toString() };
  };

  test('GET /graphql in a browser is a small page that references its files', async ({ origin }) => {
    const { response, html } = await page(origin);
    expect(response.status).toBe(200);
    expect(html.length).toBeLessThan(4000);
    expect(html).toMatch(/<script src="\/graphiql\/[\w-]+\/graphiql\.js"><\/script>/);
    expect(html).toMatch(/<link rel="stylesheet" href="\/graphiql\/[\w-]+\/graphiql\.css" \/>/);
  });

  test('its page has no inline script and is served with the same CSP, no framing and no Referer', async ({
    origin,
  }) => {
    const { response, html } = await page(origin);
    expect(response.headers.get('content-security-policy')).toBe(PAGE_POLICY);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(
      scripts.filter(
        ([, attributes, body]) => body!.trim() !== '' && !/type="application\/json"/.test(attributes!),
      ),
    ).toEqual([]);
  });

  test("GraphiQL's script is cached as immutable and sent compressed", async ({ origin }) => {
    const { html } = await page(origin);
    const script = /<script src="([^"]+)">/.exec(html)![1]!;
    const { response, body } = await raw(`${origin}${script}`, { 'accept-encoding': 'br' });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('content-encoding')).toBe('br');
    expect(brotliDecompressSync(body).toString()).toContain('renderYogaGraphiQL');
  });

  test('a GraphiQL file name that no file has is a 404', async ({ origin }) => {
    const { response, body } = await raw(`${origin}/graphiql/no-such-hash/graphiql.js`);
    expect(response.status).toBe(404);
    expect(body.toString()).toBe('not found');
  });

  test('each worker GraphiQL names is served', async ({ origin }) => {
    const { html } = await page(origin);
    const config = /<script type="application\/json" id="graphiql-config">(.*?)<\/script>/s.exec(html)![1]!;
    const workers = (JSON.parse(config) as { workers: Record<string, string> }).workers;
    expect(Object.keys(workers).sort()).toEqual(['editorWorkerService', 'graphql', 'json']);
    for (const path of Object.values(workers)) {
      const { response } = await raw(`${origin}${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
    }
  });
});
