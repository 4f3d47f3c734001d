import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EverythingHttpServer, startEverythingHttp } from '../../support/everything-http.js';

const TOKEN = 'ats_agent_bridge-test-secret-0123456789';
const CLI = resolve(import.meta.dirname, '../../../dist/app/cli.js');

let upstream: EverythingHttpServer;
const open: Client[] = [];
beforeAll(async () => {
  upstream = await startEverythingHttp(TOKEN);
});
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((client) => client.close()));
});
afterAll(async () => {
  await upstream.close();
});

/** The bridge as an MCP host launches it (a child process on stdio), with what it printed on stderr. */
function bridge(args: string[], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp-stdio', ...args],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const client = new Client({ name: 'bridge-test', version: '1.0.0' }, { capabilities: { sampling: {} } });
  open.push(client);
  return { client, transport, stderr: () => stderr.join('') };
}

/** A loopback port nothing listens on (taken, then given back). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

const viaEnv = (url = upstream.url, token = TOKEN) =>
  bridge(['--url', url, '--token-env', 'GATEWAY_TOKEN'], { GATEWAY_TOKEN: token });

describe('mcp-stdio: a stdio MCP server that pipes every message to a Streamable HTTP endpoint', () => {
  it('lists the endpoint’s tools, each request carrying the bearer token', async () => {
    const { client, transport } = viaEnv();
    await client.connect(transport);
    const before = upstream.authorizations.length;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'trigger-sampling-request']),
    );
    const sent = upstream.authorizations.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(new Set(sent)).toEqual(new Set([`Bearer ${TOKEN}`]));
    expect(client.getServerVersion()?.name).toBe('mcp-servers/everything');
  });

  it('calls a tool and hands back its result unchanged', async () => {
    const { client, transport } = viaEnv();
    await client.connect(transport);
    const result = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } });
    expect(result.content).toEqual([{ type: 'text', text: 'The sum of 2 and 40 is 42.' }]);
  });

  it('relays the server’s own request (sampling) to the host and its answer back', async () => {
    const { client, transport } = viaEnv();
    const asked: unknown[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      asked.push(request.params.messages[0]?.content);
      return {
        model: 'host-model',
        role: 'assistant',
        content: { type: 'text', text: 'sampled by the host' },
      };
    });
    await client.connect(transport);
    const result = await client.callTool({
      name: 'trigger-sampling-request',
      arguments: { prompt: 'hello' },
    });
    expect(asked).toEqual([{ type: 'text', text: 'Resource trigger-sampling-request context: hello' }]);
    const text = (result.content as { text: string }[])[0]!.text;
    expect(text).toContain('sampled by the host');
    expect(text).toContain('host-model');
  });

  it('answers with a clear error when the endpoint refuses the token', async () => {
    const { client, transport, stderr } = viaEnv(upstream.url, 'ats_agent_wrong-secret');
    await expect(client.connect(transport)).rejects.toThrow(
      `the gateway at ${upstream.url} refused the token (HTTP 401): give a valid, unexpired AGENT API token`,
    );
    expect(stderr()).toContain('refused the token (HTTP 401)');
  });

  it('answers with a clear error when nothing listens at the URL', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const { client, transport } = viaEnv(url);
    await expect(client.connect(transport)).rejects.toThrow(
      `cannot reach the gateway at ${url} (ECONNREFUSED): is the server running and the URL right?`,
    );
  });

  it('with --token-env, the token is neither in the process arguments nor in anything it prints', async () => {
    const { client, transport, stderr } = viaEnv();
    await client.connect(transport);
    await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 1 } });
    const argv = readFileSync(`/proc/${transport.pid}/cmdline`, 'utf8').split('\0');
    expect(argv).toContain('GATEWAY_TOKEN');
    expect(argv.join(' ')).not.toContain(TOKEN);
    expect(stderr()).toContain(`mcp-stdio: relaying stdio to ${upstream.url}`);
    expect(stderr()).not.toContain(TOKEN);
  });

  it('never prints the token, even when the endpoint refuses it', async () => {
    const { client, transport, stderr } = bridge([
      '--url',
      upstream.url,
      '--token',
      'ats_agent_refused-secret-42',
    ]);
    await expect(client.connect(transport)).rejects.toThrow('HTTP 401');
    expect(stderr()).toContain('refused the token');
    expect(stderr()).not.toContain('refused-secret-42');
  });

  it('reads neither the server’s configuration nor its database (it runs beside a server holding them)', async () => {
    const { client, transport } = bridge(['--url', upstream.url, '--token-env', 'GATEWAY_TOKEN'], {
      GATEWAY_TOKEN: TOKEN,
      DATABASE_URL: 'not a postgres url',
      DATA_DIR: '/nonexistent/never-created',
    });
    await client.connect(transport);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('refuses to start without a token, naming the options', async () => {
    const { client, transport, stderr } = bridge(['--url', upstream.url, '--token-env', 'NOT_SET_ANYWHERE']);
    await expect(client.connect(transport)).rejects.toThrow();
    expect(stderr()).toContain('--token-env NOT_SET_ANYWHERE: that environment variable is not set or empty');
  });
});
