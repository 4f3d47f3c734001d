import { describe, expect } from 'vitest';
import { tools } from '../../src/calls/tables.js';
import { normalizeAnnotations, normalizeBudget } from '../../src/core/tool-spec.js';
import { dbTest as test } from '../support/fixtures.js';
import { addServer, serverConnectedElsewhere } from '../support/mcp.js';

const setRule = `mutation($input: PolicyRuleInput!) { setPolicyRule(input: $input) { id layer scopeId toolPattern effect skipApproval reason budget { maxCalls } } }`;
const effective = `query($context: PolicyContextInput!) { effectiveTools(context: $context) {
  tool { name } visible callable approvalRequired reason budget { maxCalls } remainingCalls } }`;

/**
 * test.echo (read-only) and test.side_effect (writes, not destructive) are test BUILT_IN tools;
 * mcp.web.fetch belongs to a configured server that another process is connected to.
 */
async function seedTools(services: import('../../src/app/services.js').Services) {
  await serverConnectedElsewhere(services, 'web');
  await services.registry.register({
    name: 'mcp.web.fetch',
    title: 'Fetch',
    description: 'd',
    inputSchema: { type: 'object' },
    source: 'MCP',
    annotations: { readOnly: true, openWorld: false },
  });
}

describe('policy rules', () => {
  test('creates, lists by layer and scope, replaces and removes a rule', async ({ gql }) => {
    const created = await gql(setRule, {
      input: {
        layer: 'PROFILE',
        scopeId: 'writer',
        toolPattern: 'notes.*',
        effect: 'ALLOW',
        reason: 'writers take notes',
      },
    });
    const rule = created.data!.setPolicyRule;
    expect(rule).toMatchObject({
      layer: 'PROFILE',
      scopeId: 'writer',
      toolPattern: 'notes.*',
      effect: 'ALLOW',
      skipApproval: false,
      reason: 'writers take notes',
      budget: null,
    });
    await gql(setRule, { input: { layer: 'PROFILE', scopeId: 'other', toolPattern: '*', effect: 'DENY' } });

    const listed = await gql(`{ policyRules(layer: PROFILE, scopeId: "writer") { id } }`);
    expect(listed.data!.policyRules).toEqual([{ id: rule.id }]);

    const replaced = await gql(setRule, {
      input: { id: rule.id, layer: 'PROFILE', scopeId: 'writer', toolPattern: 'notes.read', effect: 'ASK' },
    });
    expect(replaced.data!.setPolicyRule).toMatchObject({
      id: rule.id,
      toolPattern: 'notes.read',
      effect: 'ASK',
    });

    expect((await gql(`mutation { removePolicyRule(id: "${rule.id}") }`)).data!.removePolicyRule).toBe(true);
    expect(
      (await gql(`{ policyRules(layer: PROFILE, scopeId: "writer") { id } }`)).data!.policyRules,
    ).toEqual([]);
  });

  test.for([
    [
      'a PLATFORM rule with a scope',
      { layer: 'PLATFORM', scopeId: 'x', toolPattern: '*', effect: 'ALLOW' },
      'input.scopeId: PLATFORM rules apply everywhere and take no scopeId',
    ],
    [
      'a PROFILE rule without a scope',
      { layer: 'PROFILE', toolPattern: '*', effect: 'ALLOW' },
      'input.scopeId: PROFILE rules need the scopeId they apply to',
    ],
    [
      'a SOURCE rule for an unknown source',
      { layer: 'SOURCE', scopeId: 'WEB', toolPattern: '*', effect: 'ALLOW' },
      'input.scopeId: SOURCE rules need a scopeId of BUILT_IN, MCP, EXTENSION, SKILL',
    ],
    [
      'a pattern with a path character',
      { layer: 'PLATFORM', toolPattern: 'a/b', effect: 'ALLOW' },
      'input.toolPattern: must be a tool name or a glob of A-Z a-z 0-9 _ - . * ?',
    ],
    [
      'a waiver on a DENY',
      { layer: 'PLATFORM', toolPattern: '*', effect: 'DENY', skipApproval: true },
      'input.skipApproval: only an ALLOW rule can waive approval',
    ],
  ] as const)('rejects %s with BAD_USER_INPUT', async ([, input, message], { gql }) => {
    const res = await gql(setRule, { input });
    expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(res.errors![0]!.message).toBe(message);
  });

  test('removing an unknown rule is NOT_FOUND', async ({ gql }) => {
    const res = await gql(`mutation { removePolicyRule(id: "9b2f4a43-55a4-4b8e-9a3c-1f8e2d3c4b5a") }`);
    expect(res.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });
});

describe('effectiveTools', () => {
  test('shows which tools a user, profile and plan node would see, and why', async ({ gql, services }) => {
    await seedTools(services);
    await gql(setRule, {
      input: {
        layer: 'PROFILE',
        scopeId: 'writer',
        toolPattern: 'test.*',
        effect: 'ALLOW',
        budget: { maxCalls: 5 },
      },
    });
    await gql(setRule, {
      input: { layer: 'PROFILE', scopeId: 'writer', toolPattern: 'mcp.*', effect: 'ALLOW' },
    });
    await gql(setRule, {
      input: { layer: 'USER', scopeId: 'alice', toolPattern: 'test.side_effect', effect: 'ASK' },
    });

    const res = await gql(effective, { context: { userId: 'alice', profileId: 'writer' } });
    const byName = Object.fromEntries(
      res.data!.effectiveTools.map((t: { tool: { name: string } }) => [t.tool.name, t]),
    );
    expect(byName['test.echo']).toMatchObject({
      visible: true,
      callable: true,
      approvalRequired: false,
      budget: { maxCalls: 5 },
      remainingCalls: 5,
    });
    expect(byName['test.echo'].reason).toMatch(/^allowed by PROFILE rule .* \(ALLOW "test\.\*"\)$/);
    expect(byName['test.side_effect']).toMatchObject({ visible: true, approvalRequired: true });
    expect(byName['test.side_effect'].reason).toMatch(/approval required by USER rule/);
    expect(byName['mcp.web.fetch']).toMatchObject({ visible: true, approvalRequired: true });
    expect(byName['mcp.web.fetch'].reason).toMatch(/MCP tools need approval by default/);
  });

  test('a plan node narrows the run to the tools it lists', async ({ gql, services }) => {
    await seedTools(services);
    await gql(setRule, { input: { layer: 'PROFILE', scopeId: 'writer', toolPattern: '*', effect: 'ALLOW' } });
    await gql(setRule, {
      input: { layer: 'PLAN_NODE', scopeId: 'draft', toolPattern: 'test.echo', effect: 'ALLOW' },
    });
    const res = await gql(effective, { context: { profileId: 'writer', planNodeId: 'draft' } });
    const visible = res
      .data!.effectiveTools.filter((t: { visible: boolean }) => t.visible)
      .map((t: { tool: { name: string } }) => t.tool.name);
    expect(visible).toEqual(['test.echo']);
  });

  test('a platform deny wins over every other layer', async ({ gql, services }) => {
    await seedTools(services);
    await gql(setRule, { input: { layer: 'USER', scopeId: 'alice', toolPattern: '*', effect: 'ALLOW' } });
    await gql(setRule, {
      input: { layer: 'PLATFORM', toolPattern: 'mcp.*', effect: 'DENY', reason: 'no network' },
    });
    const res = await gql(effective, { context: { userId: 'alice' } });
    const fetch = res.data!.effectiveTools.find(
      (t: { tool: { name: string } }) => t.tool.name === 'mcp.web.fetch',
    );
    expect(fetch).toMatchObject({ visible: false, callable: false });
    expect(fetch.reason).toMatch(/^denied by PLATFORM rule .*: no network$/);
  });

  test('an MCP tool whose server is connected nowhere is not offered, and says so', async ({
    gql,
    services,
  }) => {
    await addServer(services, { name: 'off', transport: 'STREAMABLE_HTTP', url: 'http://127.0.0.1:9/mcp' });
    await services.registry.register({
      name: 'mcp.off.fetch',
      title: 'Fetch',
      description: 'd',
      inputSchema: { type: 'object' },
      source: 'MCP',
    });
    await gql(setRule, { input: { layer: 'PLATFORM', toolPattern: '*', effect: 'ALLOW' } });
    const res = await gql(effective, { context: {} });
    const fetch = res.data!.effectiveTools.find(
      (t: { tool: { name: string } }) => t.tool.name === 'mcp.off.fetch',
    );
    expect(fetch).toMatchObject({ visible: false, callable: false });
    expect(fetch.reason).toMatch(
      /^cannot run now: its MCP server off is not connected to any server process \(allowed by PLATFORM rule/,
    );
  });

  test('a tool no executor can run (a SKILL row left from before) is not offered, and says why', async ({
    gql,
    services,
  }) => {
    await services.database.db.insert(tools).values({
      name: 'notes.read',
      title: 'Read notes',
      description: 'd',
      inputSchema: { type: 'object' },
      outputSchema: null,
      annotations: normalizeAnnotations({ readOnly: true, openWorld: false }),
      visibility: 'MODEL',
      permission: 'ALWAYS_ALLOW',
      budget: normalizeBudget(null),
      source: 'SKILL',
      enabled: true,
      owner: null,
    });
    await gql(setRule, { input: { layer: 'PLATFORM', toolPattern: '*', effect: 'ALLOW' } });
    const res = await gql(effective, { context: {} });
    const notes = res.data!.effectiveTools.find(
      (t: { tool: { name: string } }) => t.tool.name === 'notes.read',
    );
    expect(notes).toMatchObject({ visible: false, callable: false });
    expect(notes.reason).toMatch(
      /^cannot run now: no executor for it: no executor runs SKILL tools: skills are imported with importSkills/,
    );
  });

  test('with no rules every tool is invisible', async ({ gql, services }) => {
    await seedTools(services);
    const res = await gql(effective, { context: {} });
    expect(res.data!.effectiveTools.every((t: { visible: boolean }) => !t.visible)).toBe(true);
  });
});
