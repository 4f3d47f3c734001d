import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EverythingHttpServer, startEverythingHttp } from './everything-http.js';
import { inspect } from './inspector.js';

/** The inspector helper against the published reference server, so a gateway test failing is the gateway's. */
const TOKEN = 'inspector-helper-token';
let server: EverythingHttpServer;
beforeAll(async () => {
  server = await startEverythingHttp(TOKEN);
});
afterAll(async () => {
  await server.close();
});

describe('inspect: the MCP inspector CLI as a test helper', () => {
  it('lists the tools, sending the bearer token', async () => {
    const run = await inspect(server.url, { token: TOKEN, method: 'tools/list' });
    expect(run.code).toBe(0);
    const names = (run.json as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    expect(server.authorizations).toContain(`Bearer ${TOKEN}`);
  });

  it('calls a tool with arguments (numbers read as JSON) and returns its result', async () => {
    const run = await inspect(server.url, {
      token: TOKEN,
      method: 'tools/call',
      toolName: 'get-sum',
      toolArgs: { a: 20, b: 22 },
    });
    expect(run.json).toEqual({ content: [{ type: 'text', text: 'The sum of 20 and 22 is 42.' }] });
  });

  it('fails with status 1 and no result when the token is refused', async () => {
    const run = await inspect(server.url, { token: 'wrong', method: 'tools/list' });
    expect(run).toMatchObject({ code: 1, json: null });
    expect(run.stderr).toBe(
      'Failed to connect to MCP server: Streamable HTTP error: Error POSTing to endpoint: unauthorized\n',
    );
  });
});
