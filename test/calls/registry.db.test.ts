import { eq } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { tools } from '../../src/calls/tables.js';
import { dbTest as test } from '../support/fixtures.js';
import { addServer, stdioTestServer } from '../support/mcp.js';

const register = `mutation($input: RegisterToolInput!) { registerTool(input: $input) {
  name title source enabled visibility permission
  annotations { readOnly destructive idempotent openWorld cost }
  budget { maxCalls maxOutputTokens timeoutMs } inputSchema outputSchema } }`;

const dice = {
  name: 'ext.dice.roll',
  title: 'Roll dice',
  description: 'Rolls dice in NdM notation.',
  inputSchema: { type: 'object', properties: { notation: { type: 'string' } }, required: ['notation'] },
  source: 'EXTENSION',
};

describe('tool registry', () => {
  test('registers a tool with MCP defaults for unset annotations', async ({ gql }) => {
    const res = await gql(register, { input: dice });
    expect(res.errors).toBeUndefined();
    expect(res.data!.registerTool).toEqual({
      name: 'ext.dice.roll',
      title: 'Roll dice',
      source: 'EXTENSION',
      enabled: true,
      visibility: 'MODEL',
      permission: 'ALWAYS_ALLOW',
      annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true, cost: null },
      budget: { maxCalls: null, maxOutputTokens: null, timeoutMs: null },
      inputSchema: dice.inputSchema,
      outputSchema: null,
    });
  });

  test('lists tools as a connection filtered by source and paged by name', async ({ gql, services }) => {
    await addServer(services, { ...stdioTestServer('b'), enabled: false });
    for (const name of ['ext.a.one', 'mcp.b.two', 'ext.c.three']) {
      await gql(register, { input: { ...dice, name, source: name === 'mcp.b.two' ? 'MCP' : 'EXTENSION' } });
    }
    const page = await gql(
      `{ tools(first: 1, source: EXTENSION) { edges { cursor node { name } } pageInfo { hasNextPage endCursor } } }`,
    );
    expect(page.data!.tools.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(['ext.a.one']);
    expect(page.data!.tools.pageInfo.hasNextPage).toBe(true);
    const next = await gql(
      `query($after: String) { tools(first: 1, after: $after, source: EXTENSION) { edges { node { name } } pageInfo { hasNextPage } } }`,
      { after: page.data!.tools.pageInfo.endCursor },
    );
    expect(next.data!.tools.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual([
      'ext.c.three',
    ]);
    expect(next.data!.tools.pageInfo.hasNextPage).toBe(false);
    const mcp = await gql(`{ tools(source: MCP) { edges { node { name } } } }`);
    expect(mcp.data!.tools.edges).toEqual([{ node: { name: 'mcp.b.two' } }]);
  });
});

describe('registerTool refuses tools no executor could run', () => {
  test.for([
    [
      'any SKILL tool',
      { name: 'notes.read', source: 'SKILL' },
      /^input\.source: no executor could run SKILL tool notes\.read: no executor runs SKILL tools: skills are imported with importSkills/,
    ],
    [
      'an MCP name outside mcp.<server>.',
      { name: 'web.fetch', source: 'MCP' },
      /^input\.source: no executor could run MCP tool web\.fetch: MCP tools come from an MCP server an admin adds with addMcpServer; they are named mcp\.<server>\.<tool>/,
    ],
    [
      'an MCP name of a server nobody configured',
      { name: 'mcp.nowhere.fetch', source: 'MCP' },
      /^input\.source: no executor could run MCP tool mcp\.nowhere\.fetch: no MCP server named nowhere is configured \(MCP tools come from a server an admin adds with addMcpServer/,
    ],
    [
      'an EXTENSION name outside ext.<extensionId>.',
      { name: 'dice.roll', source: 'EXTENSION' },
      /^input\.source: no executor could run EXTENSION tool dice\.roll: EXTENSION tools are registered by the extension itself with registerExtensionTools and the extension's token/,
    ],
  ] as const)(
    '%s is BAD_USER_INPUT saying how such tools come to exist',
    async ([, patch, message], { gql, services }) => {
      const res = await gql(register, { input: { ...dice, ...patch } });
      expect(res.errors).toHaveLength(1);
      expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
      expect(res.errors![0]!.message).toMatch(message);
      expect(await services.registry.get(patch.name)).toBeNull();
    },
  );

  test('a tool of a configured MCP server is declared ahead of its listing, owned by the server', async ({
    gql,
    services,
  }) => {
    await addServer(services, { ...stdioTestServer('web'), enabled: false });
    const res = await gql(register, { input: { ...dice, name: 'mcp.web.fetch', source: 'MCP' } });
    expect(res.errors).toBeUndefined();
    const [row] = await services.database.db.select().from(tools).where(eq(tools.name, 'mcp.web.fetch'));
    expect(row!.owner).toBe('web');
  });

  test("a tool in an extension's namespace is owned by that extension", async ({ gql, services }) => {
    await gql(register, { input: dice });
    const [row] = await services.database.db.select().from(tools).where(eq(tools.name, 'ext.dice.roll'));
    expect(row!.owner).toBe('dice');
  });
});

describe('tool registry validation', () => {
  test.for([
    ['name', { name: 'bad name!' }, /^input\.name: must be 1-128 characters/],
    ['name length', { name: 'a'.repeat(129) }, /^input\.name:/],
    [
      'inputSchema root',
      { inputSchema: { type: 'string' } },
      /^input\.inputSchema: root must be an object schema/,
    ],
    [
      'inputSchema compile',
      { inputSchema: { type: 'object', properties: { a: { type: 'strin' } } } },
      /^input\.inputSchema: does not compile/,
    ],
    ['outputSchema', { outputSchema: { type: 12 } }, /^input\.outputSchema: does not compile/],
    ['budget', { budget: { maxCalls: 0 } }, /^input\.budget\.maxCalls:/],
    ['source BUILT_IN', { source: 'BUILT_IN' }, /^input\.source: BUILT_IN is reserved/],
  ] as const)(
    'rejects an invalid %s with BAD_USER_INPUT naming the field',
    async ([, patch, message], { gql }) => {
      const res = await gql(register, { input: { ...dice, ...patch } });
      expect(res.data).toBeNull();
      expect(res.errors).toHaveLength(1);
      expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
      expect(res.errors![0]!.message).toMatch(message);
    },
  );

  test('replaces a registered tool when registered again under the same name', async ({ gql }) => {
    await gql(register, { input: dice });
    const res = await gql(register, { input: { ...dice, title: 'Roll the dice' } });
    expect(res.data!.registerTool.title).toBe('Roll the dice');
  });

  test('keeps a disabled tool disabled when it is registered again', async ({ gql }) => {
    await gql(register, { input: dice });
    await gql(`mutation { setToolEnabled(name: "ext.dice.roll", enabled: false) { enabled } }`);
    const res = await gql(register, { input: dice });
    expect(res.data!.registerTool.enabled).toBe(false);
  });

  test('updates some fields and leaves the others', async ({ gql }) => {
    await gql(register, { input: dice });
    const res = await gql(
      `mutation { updateTool(name: "ext.dice.roll", input: { permission: APPROVAL_REQUIRED, budget: { maxCalls: 3 } }) {
        title permission budget { maxCalls timeoutMs } } }`,
    );
    expect(res.data!.updateTool).toEqual({
      title: 'Roll dice',
      permission: 'APPROVAL_REQUIRED',
      budget: { maxCalls: 3, timeoutMs: null },
    });
  });

  test('removes a registered tool', async ({ gql }) => {
    await gql(register, { input: dice });
    expect((await gql(`mutation { removeTool(name: "ext.dice.roll") }`)).data!.removeTool).toBe(true);
    expect((await gql(`{ tool(name: "ext.dice.roll") { name } }`)).data!.tool).toBeNull();
  });

  test('answers NOT_FOUND for an unknown tool', async ({ gql }) => {
    const res = await gql(`mutation { removeTool(name: "no.such") }`);
    expect(res.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });
});

describe('BUILT_IN tools', () => {
  const builtIn = {
    name: 'workspace.read_file',
    title: 'Read file',
    description: 'Reads a file.',
    inputSchema: { type: 'object' },
    outputSchema: null,
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false, cost: null },
    visibility: 'MODEL' as const,
    permission: 'ALWAYS_ALLOW' as const,
    budget: { maxCalls: null, maxOutputTokens: null, timeoutMs: null, approvalTimeoutMs: null },
  };

  test('cannot be replaced through registerTool', async ({ gql, services }) => {
    await services.registry.upsertBuiltIn(builtIn);
    const res = await gql(register, { input: { ...dice, name: 'workspace.read_file' } });
    expect(res.errors![0]!.extensions!.code).toBe('CONFLICT');
    expect(res.errors![0]!.message).toBe('tool workspace.read_file is BUILT_IN and cannot be replaced');
    expect((await services.registry.get('workspace.read_file'))!.source).toBe('BUILT_IN');
  });

  test('cannot be removed', async ({ gql, services }) => {
    await services.registry.upsertBuiltIn(builtIn);
    const res = await gql(`mutation { removeTool(name: "workspace.read_file") }`);
    expect(res.errors![0]!.extensions!.code).toBe('CONFLICT');
    expect(await services.registry.get('workspace.read_file')).not.toBeNull();
  });

  test('can be governed (permission, budget, enabled) but not redefined', async ({ gql, services }) => {
    await services.registry.upsertBuiltIn(builtIn);
    const ok = await gql(
      `mutation { updateTool(name: "workspace.read_file", input: { permission: APPROVAL_REQUIRED, enabled: false }) { permission enabled } }`,
    );
    expect(ok.data!.updateTool).toEqual({ permission: 'APPROVAL_REQUIRED', enabled: false });
    const bad = await gql(
      `mutation { updateTool(name: "workspace.read_file", input: { description: "x" }) { name } }`,
    );
    expect(bad.errors![0]!.extensions!.code).toBe('CONFLICT');
    expect(bad.errors![0]!.message).toMatch(/not description/);
  });

  test("keeps an admin's governance choices when the server rewrites its built-ins at startup", async ({
    gql,
    services,
  }) => {
    await services.registry.upsertBuiltIn(builtIn);
    await gql(
      `mutation { updateTool(name: "workspace.read_file", input: { permission: APPROVAL_REQUIRED, enabled: false }) { name } }`,
    );
    await services.registry.upsertBuiltIn({ ...builtIn, description: 'Reads a file (v2).' });
    const spec = (await services.registry.get('workspace.read_file'))!;
    expect([spec.description, spec.permission, spec.enabled]).toEqual([
      'Reads a file (v2).',
      'APPROVAL_REQUIRED',
      false,
    ]);
  });
});
