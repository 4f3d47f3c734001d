import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { mcpCommands } from '../../../src/bridge/mcp/cli.js';
import { runCommand } from '../../support/cli.js';
import { dbTest as test } from '../../support/fixtures.js';
import { PROJECT_ROOT, waitForState } from '../../support/mcp.js';

const ADD = `mutation Add($input: AddMcpServerInput!) {
  addMcpServer(input: $input) { name transport enabled command args envNames cwd url headerNames status { state } }
}`;

const stdioInput = {
  name: 't',
  transport: 'STDIO',
  command: process.execPath,
  args: ['--import', 'tsx', 'test/support/mcp-stdio-server.ts'],
  env: [{ name: 'MCP_TEST_SECRET', value: 'hunter2-secret' }],
  cwd: PROJECT_ROOT,
};

const cli = (services: Services, words: string[], values: Record<string, string | string[]> = {}) =>
  runCommand(mcpCommands, services, words, values);

describe('MCP server administration', () => {
  test('an admin adds a server over GraphQL and sees its status and tools, never env or header values', async ({
    gql,
    services,
  }) => {
    const added = await gql(ADD, { input: stdioInput });
    expect(added.errors).toBeUndefined();
    expect(added.data!.addMcpServer).toMatchObject({
      name: 't',
      transport: 'STDIO',
      enabled: true,
      envNames: ['MCP_TEST_SECRET'],
      headerNames: [],
    });
    await waitForState(services, 't', 'CONNECTED');
    const res = await gql(`{ mcpServer(name: "t") {
      name envNames status { state toolCount lastError connectedAt }
      tools { remoteName present rejection declaredAnnotations tool { name enabled permission } }
    } mcpServers { name } }`);
    expect(res.errors).toBeUndefined();
    expect(JSON.stringify(res)).not.toContain('hunter2');
    const server = res.data!.mcpServer;
    expect(server.status).toMatchObject({ state: 'CONNECTED', toolCount: 14, lastError: null });
    expect(server.tools.find((t: { remoteName: string }) => t.remoteName === 'echo')).toEqual({
      remoteName: 'echo',
      present: true,
      rejection: null,
      declaredAnnotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      tool: { name: 'mcp.t.echo', enabled: true, permission: 'APPROVAL_REQUIRED' },
    });
    expect(server.tools.find((t: { remoteName: string }) => t.remoteName === 'bad/name')).toMatchObject({
      tool: null,
      rejection: expect.stringMatching(/^its registry name/),
    });
    expect(res.data!.mcpServers).toEqual([{ name: 't' }]);
    const journal = await services.journal.read({ limit: 10 });
    expect(journal[0]).toMatchObject({
      type: 'mcp_server_changed',
      actor: 'admin:test-admin',
      payload: { name: 't', action: 'added', envNames: ['MCP_TEST_SECRET'], headerNames: [] },
    });
    expect(JSON.stringify(journal.map((e) => e.payload))).not.toContain('hunter2');

    const refreshed = await gql(
      'mutation { refreshMcpServer(name: "t") { server { status { state } } changes { added disabled } } }',
    );
    expect(refreshed.data!.refreshMcpServer).toEqual({
      server: { status: { state: 'CONNECTED' } },
      changes: { added: [], disabled: [] },
    });
  });

  test('bad configurations are BAD_USER_INPUT naming the field; a second server of the same name is a CONFLICT', async ({
    gql,
  }) => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { ...stdioInput, name: 'My.Server' },
        'input.name: must be 1-32 characters of a-z 0-9 _ -, starting with a letter',
      ],
      [{ name: 's', transport: 'STDIO' }, 'input.command: is required for STDIO'],
      [
        { name: 's', transport: 'STREAMABLE_HTTP', url: 'file:///etc/passwd' },
        'input.url: must be an http:// or https:// URL',
      ],
      [
        { name: 's', transport: 'STREAMABLE_HTTP', url: 'http://x/mcp', command: 'sh' },
        'input.command: is only for STDIO',
      ],
      [
        {
          name: 's',
          transport: 'STREAMABLE_HTTP',
          url: 'http://x/mcp',
          headers: [{ name: 'X', value: 'a\r\nB: c' }],
        },
        'input.headers.0.value: must not contain line breaks or NUL',
      ],
      [
        { ...stdioInput, env: [{ name: 'TOKEN', value: 'secret\uD800' }] },
        'input.env.0.value: must be well-formed Unicode',
      ],
    ];
    for (const [input, message] of cases) {
      const res = await gql(ADD, { input });
      expect(res.errors?.[0]).toMatchObject({ message, extensions: { code: 'BAD_USER_INPUT' } });
    }
    const http = { name: 's', transport: 'STREAMABLE_HTTP', url: 'http://127.0.0.1:9/mcp', enabled: false };
    expect((await gql(ADD, { input: http })).errors).toBeUndefined();
    expect((await gql(ADD, { input: http })).errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const update = await gql('mutation { updateMcpServer(name: "s", input: { command: "sh" }) { name } }');
    expect(update.errors?.[0]).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT' },
      message: 'command, args, env and cwd are only for STDIO (switch the transport to use them)',
    });
    const missing = await gql('mutation { removeMcpServer(name: "nope") }');
    expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  test('a change to a server with very many header names keeps its name in the cut journal payload, which other processes reconcile by', async ({
    services,
    gql,
  }) => {
    const headers = Array.from({ length: 64 }, (_, i) => ({
      name: `X-${'Long-'.repeat(24)}${i}`,
      value: 'v',
    }));
    const res = await gql(ADD, {
      input: {
        name: 'many',
        transport: 'STREAMABLE_HTTP',
        url: 'http://127.0.0.1:9/mcp',
        headers,
        enabled: false,
      },
    });
    expect(res.errors).toBeUndefined();
    const [event] = (await services.journal.read({ limit: 100 })).filter(
      (e) => e.type === 'mcp_server_changed',
    );
    expect(event!.payload).toMatchObject({
      name: 'many',
      action: 'added',
      transport: 'STREAMABLE_HTTP',
      enabled: false,
      truncated: true,
    });
    expect(event!.payload).not.toHaveProperty('headerNames');
  });

  test('the CLI adds, lists, refreshes, disables and removes servers', async ({ services }) => {
    const added = await cli(
      services,
      ['mcp', 'add', 't', '--import', 'tsx', 'test/support/mcp-stdio-server.ts'],
      { command: process.execPath, env: ['MCP_TEST_SECRET=hunter2-secret'], cwd: PROJECT_ROOT },
    );
    expect(added.code).toBe(0);
    expect(added.out[0]).toMatch(
      /^added t {2}stdio {2}enabled {2}".*node.*" "--import" "tsx" ".*" {2}env: MCP_TEST_SECRET$/,
    );
    expect((await cli(services, ['mcp', 'list'])).out.join('\n')).not.toContain('hunter2');
    // The test services are started, so this uses the live connection; the CLI process has none and connects once.
    await waitForState(services, 't', 'CONNECTED');
    const refreshed = await cli(services, ['mcp', 'refresh', 't']);
    expect(refreshed).toMatchObject({ code: 0, out: ['t: 14 tools registered'] });
    const tools = await cli(services, ['mcp', 'tools', 't']);
    expect(tools.out).toContain('echo  mcp.t.echo  enabled');
    expect(tools.out.find((l) => l.startsWith('bad/name'))).toMatch(
      /^bad\/name {2}rejected: its registry name/,
    );
    expect((await cli(services, ['mcp', 'disable', 't'])).out).toEqual(['disabled t']);
    expect((await cli(services, ['mcp', 'tools', 't'])).out).toContain('echo  mcp.t.echo  disabled (gone)');
    expect((await cli(services, ['mcp', 'remove', 't'])).out).toEqual(['removed t']);
    expect((await cli(services, ['mcp', 'list'])).out).toEqual([]);
  });
});
