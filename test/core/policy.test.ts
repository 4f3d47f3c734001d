import { describe, expect, it } from 'vitest';
import { resolvePolicy } from '../../src/core/policy.js';
import type { PolicyCondition } from '../../src/core/policy-conditions.js';
import { patternMatches } from '../../src/core/policy-pattern.js';
import type { PolicyRule } from '../../src/core/policy-rule.js';
import { normalizeAnnotations, normalizeBudget, type ToolSpec } from '../../src/core/tool-spec.js';
import { checkWorkspacePath } from '../../src/features/workspace/rules/paths.js';

function tool(name: string, over: Partial<ToolSpec> = {}): ToolSpec {
  return {
    name,
    title: name,
    description: name,
    inputSchema: { type: 'object' },
    outputSchema: null,
    annotations: normalizeAnnotations({ readOnly: true, openWorld: false }),
    visibility: 'MODEL',
    permission: 'ALWAYS_ALLOW',
    budget: normalizeBudget(null),
    source: 'BUILT_IN',
    enabled: true,
    ...over,
  };
}

let nextId = 0;
function rule(
  layer: PolicyRule['layer'],
  scopeId: string | null,
  toolPattern: string,
  effect: PolicyRule['effect'],
  over: Partial<PolicyRule> = {},
): PolicyRule {
  nextId += 1;
  return {
    id: `r${nextId}`,
    layer,
    scopeId,
    toolPattern,
    effect,
    skipApproval: false,
    budget: null,
    reason: null,
    conditions: [],
    ...over,
  };
}

const ctx = { userId: 'u1', profileId: 'p1', planNodeId: 'n1' };
const read = tool('workspace.read_file');
const write = tool('workspace.write_file', {
  annotations: normalizeAnnotations({ readOnly: false, destructive: false, openWorld: false }),
});
const mcp = tool('mcp.github.search', {
  source: 'MCP',
  annotations: normalizeAnnotations({ readOnly: true, openWorld: true }),
});

interface Case {
  name: string;
  tools: ToolSpec[];
  rules: PolicyRule[];
  context?: typeof ctx | Record<string, string | null>;
  expect: Record<string, { visible: boolean; approvalRequired?: boolean; reason: RegExp }>;
}

const cases: Case[] = [
  {
    name: 'a tool no layer allows is invisible by default',
    tools: [read],
    rules: [],
    expect: { 'workspace.read_file': { visible: false, reason: /invisible by default/ } },
  },
  {
    name: 'platform deny is never overridden, even by allows on every other layer',
    tools: [read],
    rules: [
      rule('USER', 'u1', 'workspace.read_file', 'ALLOW'),
      rule('PROFILE', 'p1', '*', 'ALLOW'),
      rule('PLAN_NODE', 'n1', 'workspace.read_file', 'ALLOW'),
      rule('PLATFORM', null, 'workspace.*', 'DENY'),
    ],
    expect: { 'workspace.read_file': { visible: false, reason: /denied by PLATFORM rule/ } },
  },
  {
    name: 'user deny is the highest user-controlled layer: it beats a plan node allow',
    tools: [read],
    rules: [
      rule('PLAN_NODE', 'n1', 'workspace.read_file', 'ALLOW'),
      rule('USER', 'u1', 'workspace.*', 'DENY'),
    ],
    expect: { 'workspace.read_file': { visible: false, reason: /denied by USER rule/ } },
  },
  {
    name: 'a plan node deny beats a profile allow',
    tools: [read],
    rules: [
      rule('PROFILE', 'p1', 'workspace.*', 'ALLOW'),
      rule('PLAN_NODE', 'n1', 'workspace.read_file', 'DENY'),
    ],
    expect: { 'workspace.read_file': { visible: false, reason: /denied by PLAN_NODE rule/ } },
  },
  {
    name: 'a plan node that lists tools narrows the profile allow to them',
    tools: [read, write],
    rules: [
      rule('PROFILE', 'p1', 'workspace.*', 'ALLOW'),
      rule('PLAN_NODE', 'n1', 'workspace.read_file', 'ALLOW'),
    ],
    expect: {
      'workspace.read_file': { visible: true, approvalRequired: false, reason: /allowed by PLAN_NODE rule/ },
      'workspace.write_file': { visible: false, reason: /plan node n1 does not list this tool/ },
    },
  },
  {
    name: 'deny beats allow within one layer, whatever their order',
    tools: [read, write],
    rules: [
      rule('PROFILE', 'p1', 'workspace.write_file', 'DENY'),
      rule('PROFILE', 'p1', 'workspace.*', 'ALLOW'),
    ],
    expect: {
      'workspace.read_file': { visible: true, reason: /allowed by PROFILE rule/ },
      'workspace.write_file': { visible: false, reason: /denied by PROFILE rule/ },
    },
  },
  {
    name: 'deny beats allow across layers: a profile deny hides what a plan node allows',
    tools: [read],
    rules: [
      rule('PLAN_NODE', 'n1', 'workspace.read_file', 'ALLOW'),
      rule('PROFILE', 'p1', 'workspace.read_file', 'DENY'),
    ],
    expect: { 'workspace.read_file': { visible: false, reason: /denied by PROFILE rule/ } },
  },
  {
    name: 'ASK is not deny: the tool stays visible and is gated by approval',
    tools: [read],
    rules: [rule('PROFILE', 'p1', 'workspace.read_file', 'ASK')],
    expect: {
      'workspace.read_file': {
        visible: true,
        approvalRequired: true,
        reason: /approval required by PROFILE rule/,
      },
    },
  },
  {
    name: 'ASK on one layer gates a tool that another layer simply allows',
    tools: [read],
    rules: [rule('PLATFORM', null, '*', 'ALLOW'), rule('USER', 'u1', 'workspace.read_file', 'ASK')],
    expect: {
      'workspace.read_file': {
        visible: true,
        approvalRequired: true,
        reason: /approval required by USER rule/,
      },
    },
  },
  {
    name: 'rules scoped to another user, profile or plan node do not apply',
    tools: [read],
    rules: [
      rule('USER', 'u2', '*', 'ALLOW'),
      rule('PROFILE', 'p2', '*', 'ALLOW'),
      rule('PLAN_NODE', 'n2', '*', 'ALLOW'),
    ],
    expect: { 'workspace.read_file': { visible: false, reason: /invisible by default/ } },
  },
  {
    name: "another plan node's list does not narrow this run",
    tools: [read],
    rules: [rule('PROFILE', 'p1', '*', 'ALLOW'), rule('PLAN_NODE', 'n2', 'something.else', 'ALLOW')],
    expect: { 'workspace.read_file': { visible: true, reason: /allowed by PROFILE rule/ } },
  },
  {
    name: 'a plan node with only denies does not narrow the run',
    tools: [read, write],
    rules: [rule('PROFILE', 'p1', '*', 'ALLOW'), rule('PLAN_NODE', 'n1', 'workspace.write_file', 'DENY')],
    expect: {
      'workspace.read_file': { visible: true, reason: /allowed by PROFILE rule/ },
      'workspace.write_file': { visible: false, reason: /denied by PLAN_NODE rule/ },
    },
  },
  {
    name: 'MCP tools need approval by default even when allowed',
    tools: [mcp],
    rules: [rule('PROFILE', 'p1', 'mcp.*', 'ALLOW')],
    expect: {
      'mcp.github.search': {
        visible: true,
        approvalRequired: true,
        reason: /MCP tools need approval by default/,
      },
    },
  },
  {
    name: 'an ALLOW that explicitly waives approval lifts the MCP default',
    tools: [mcp],
    rules: [rule('PROFILE', 'p1', 'mcp.*', 'ALLOW', { skipApproval: true })],
    expect: {
      'mcp.github.search': { visible: true, approvalRequired: false, reason: /allowed by PROFILE rule/ },
    },
  },
  {
    name: 'a waiver does not lift an explicit ASK elsewhere',
    tools: [mcp],
    rules: [
      rule('PROFILE', 'p1', 'mcp.*', 'ALLOW', { skipApproval: true }),
      rule('USER', 'u1', 'mcp.github.*', 'ASK'),
    ],
    expect: {
      'mcp.github.search': {
        visible: true,
        approvalRequired: true,
        reason: /approval required by USER rule/,
      },
    },
  },
  {
    name: 'extension tools need approval by default',
    tools: [tool('ext.dice.roll', { source: 'EXTENSION' })],
    rules: [rule('USER', 'u1', 'ext.*', 'ALLOW')],
    expect: {
      'ext.dice.roll': { visible: true, approvalRequired: true, reason: /EXTENSION tools need approval/ },
    },
  },
  {
    name: 'a SOURCE rule applies to every tool of that source and no other',
    tools: [read, mcp],
    rules: [rule('PLATFORM', null, '*', 'ALLOW'), rule('SOURCE', 'MCP', '*', 'DENY')],
    expect: {
      'workspace.read_file': { visible: true, reason: /allowed by PLATFORM rule/ },
      'mcp.github.search': { visible: false, reason: /denied by SOURCE rule/ },
    },
  },
  {
    name: 'destructive tools are gated by approval by default',
    tools: [
      tool('workspace.delete', {
        annotations: normalizeAnnotations({ readOnly: false, destructive: true, openWorld: false }),
      }),
    ],
    rules: [rule('PROFILE', 'p1', '*', 'ALLOW')],
    expect: {
      'workspace.delete': {
        visible: true,
        approvalRequired: true,
        reason: /destructive tools need approval/,
      },
    },
  },
  {
    name: 'a tool with external side effects is gated by approval by default',
    tools: [
      tool('net.post', {
        annotations: normalizeAnnotations({ readOnly: false, destructive: false, openWorld: true }),
      }),
    ],
    rules: [rule('PROFILE', 'p1', '*', 'ALLOW')],
    expect: { 'net.post': { visible: true, approvalRequired: true, reason: /external side effects/ } },
  },
  {
    name: 'a high-cost tool is gated by approval by default',
    tools: [
      tool('model.sample', {
        annotations: normalizeAnnotations({ readOnly: true, openWorld: false, cost: 'HIGH' }),
      }),
    ],
    rules: [rule('PROFILE', 'p1', '*', 'ALLOW')],
    expect: { 'model.sample': { visible: true, approvalRequired: true, reason: /high-cost tools/ } },
  },
  {
    name: 'a read-only, closed-world tool that is allowed needs no approval',
    tools: [read],
    rules: [rule('PROFILE', 'p1', '*', 'ALLOW')],
    expect: {
      'workspace.read_file': { visible: true, approvalRequired: false, reason: /^allowed by PROFILE rule/ },
    },
  },
  {
    name: "the tool's own DENY permission hides it whatever the rules allow",
    tools: [tool('x.y', { permission: 'DENY' })],
    rules: [rule('PLAN_NODE', 'n1', 'x.y', 'ALLOW')],
    expect: { 'x.y': { visible: false, reason: /tool permission DENY/ } },
  },
  {
    name: "the tool's own APPROVAL_REQUIRED permission is not waived by skipApproval",
    tools: [tool('x.y', { permission: 'APPROVAL_REQUIRED' })],
    rules: [rule('PROFILE', 'p1', 'x.y', 'ALLOW', { skipApproval: true })],
    expect: { 'x.y': { visible: true, approvalRequired: true, reason: /tool permission APPROVAL_REQUIRED/ } },
  },
  {
    name: 'a disabled tool is hidden even when a rule allows it',
    tools: [tool('x.y', { enabled: false })],
    rules: [rule('PLATFORM', null, '*', 'ALLOW')],
    expect: { 'x.y': { visible: false, reason: /disabled/ } },
  },
  {
    name: 'a USER_ONLY tool is never offered to the model',
    tools: [tool('x.y', { visibility: 'USER_ONLY' })],
    rules: [rule('PLATFORM', null, '*', 'ALLOW')],
    expect: { 'x.y': { visible: false, reason: /USER_ONLY/ } },
  },
  {
    name: 'a platform deny outranks a user deny as the named reason',
    tools: [read],
    rules: [rule('USER', 'u1', '*', 'DENY'), rule('PLATFORM', null, '*', 'DENY')],
    expect: { 'workspace.read_file': { visible: false, reason: /denied by PLATFORM rule/ } },
  },
  {
    name: 'a user deny is reported before the tool permission DENY',
    tools: [tool('x.y', { permission: 'DENY' })],
    rules: [rule('USER', 'u1', 'x.*', 'DENY')],
    expect: { 'x.y': { visible: false, reason: /denied by USER rule/ } },
  },
  {
    name: 'without a plan node in the context, plan node rules do not apply',
    tools: [read],
    rules: [rule('PROFILE', 'p1', '*', 'ALLOW'), rule('PLAN_NODE', 'n1', 'other', 'ALLOW')],
    context: { userId: 'u1', profileId: 'p1', planNodeId: null },
    expect: { 'workspace.read_file': { visible: true, reason: /allowed by PROFILE rule/ } },
  },
];

describe('resolvePolicy precedence table', () => {
  it.each(cases)('$name', (c) => {
    const result = resolvePolicy(c.tools, c.rules, c.context ?? ctx);
    for (const [name, expected] of Object.entries(c.expect)) {
      const view = result.find((t) => t.tool.name === name)!;
      expect(view.visible, `${name} visible`).toBe(expected.visible);
      expect(view.callable, `${name} callable`).toBe(expected.visible);
      expect(view.permitted, `${name} permitted`).toBe(expected.visible);
      if (expected.approvalRequired !== undefined)
        expect(view.approvalRequired).toBe(expected.approvalRequired);
      expect(view.reason).toMatch(expected.reason);
    }
  });

  it('names the deciding rule by id, pattern and reason text', () => {
    const r = rule('PLATFORM', null, 'workspace.*', 'DENY', { reason: 'maintenance' });
    const [view] = resolvePolicy([read], [r], ctx);
    expect(view!.reason).toBe(`denied by PLATFORM rule ${r.id} (DENY "workspace.*"): maintenance`);
  });

  it('takes the tightest budget of the tool and every granting rule', () => {
    const t = tool('x.y', {
      budget: { maxCalls: 10, maxOutputTokens: null, timeoutMs: 5000, approvalTimeoutMs: null },
    });
    const rules = [
      rule('PROFILE', 'p1', '*', 'ALLOW', {
        budget: { maxCalls: 3, maxOutputTokens: 2000, timeoutMs: null, approvalTimeoutMs: null },
      }),
      rule('PLAN_NODE', 'n1', 'x.*', 'ALLOW', {
        budget: { maxCalls: 5, maxOutputTokens: 1000, timeoutMs: 9000, approvalTimeoutMs: 60000 },
      }),
    ];
    const [view] = resolvePolicy([t], rules, ctx);
    expect(view!.budget).toEqual({
      maxCalls: 3,
      maxOutputTokens: 1000,
      timeoutMs: 5000,
      approvalTimeoutMs: 60000,
      approvals: null,
      forbidSelfApproval: null,
    });
    expect(view!.remainingCalls).toBe(3);
  });

  it('takes the most approvers and any ban on self-approval of the tool and every granting rule', () => {
    const none = { maxCalls: null, maxOutputTokens: null, timeoutMs: null, approvalTimeoutMs: null };
    const t = tool('x.y', { budget: { ...none, approvals: 2 } });
    const rules = [
      rule('PROFILE', 'p1', '*', 'ALLOW', { budget: { ...none, approvals: 3 } }),
      rule('PLAN_NODE', 'n1', 'x.*', 'ASK', { budget: { ...none, approvals: 1, forbidSelfApproval: true } }),
    ];
    const [view] = resolvePolicy([t], rules, ctx);
    expect(view!.budget).toMatchObject({ approvals: 3, forbidSelfApproval: true });
  });

  it('counts remaining calls against the tool, per-tool and run limits', () => {
    const t = tool('x.y', {
      budget: { maxCalls: 10, maxOutputTokens: null, timeoutMs: null, approvalTimeoutMs: null },
    });
    const usage = { maxCalls: 20, maxCallsPerTool: 4, totalCalls: 18, callsByTool: new Map([['x.y', 1]]) };
    const [view] = resolvePolicy([t], [rule('PLATFORM', null, '*', 'ALLOW')], ctx, usage);
    expect(view!.remainingCalls).toBe(2);
  });

  it('never reports a negative number of remaining calls', () => {
    const t = tool('x.y', {
      budget: { maxCalls: 1, maxOutputTokens: null, timeoutMs: null, approvalTimeoutMs: null },
    });
    const usage = {
      maxCalls: null,
      maxCallsPerTool: null,
      totalCalls: 3,
      callsByTool: new Map([['x.y', 3]]),
    };
    const [view] = resolvePolicy([t], [rule('PLATFORM', null, '*', 'ALLOW')], ctx, usage);
    expect(view!.remainingCalls).toBe(0);
  });
});

describe('resolvePolicy: tools that cannot run now and who is calling', () => {
  const allowAll = [rule('PLATFORM', null, '*', 'ALLOW')];
  const limited = tool('x.y', {
    budget: { maxCalls: 2, maxOutputTokens: null, timeoutMs: null, approvalTimeoutMs: null },
  });
  const used = (n: number) => ({
    maxCalls: null,
    maxCallsPerTool: null,
    totalCalls: n,
    callsByTool: new Map([['x.y', n]]),
  });

  it.each([
    {
      name: 'a tool whose budget is used up is not offered, and says so',
      tools: [limited],
      usage: used(2),
      availability: undefined,
      expect: {
        visible: false,
        permitted: true,
        code: 'budget_exhausted',
        reason: /^cannot run now: call budget used up \(0 calls left in this run\) \(allowed by PLATFORM/,
      },
    },
    {
      name: 'a tool with budget left is offered',
      tools: [limited],
      usage: used(1),
      availability: undefined,
      expect: { visible: true, permitted: true, code: null, reason: /^allowed by PLATFORM/ },
    },
    {
      name: 'a tool with no executor is not offered, with the reason the service gave',
      tools: [tool('notes.read', { source: 'SKILL' })],
      usage: undefined,
      availability: new Map([
        ['notes.read', { code: 'tool_unavailable' as const, reason: 'no executor for it: SKILL' }],
      ]),
      expect: {
        visible: false,
        permitted: true,
        code: 'tool_unavailable',
        reason: /^cannot run now: no executor for it: SKILL/,
      },
    },
    {
      name: 'an MCP tool whose server is connected nowhere is not offered',
      tools: [mcp],
      usage: undefined,
      availability: new Map([
        [
          'mcp.github.search',
          { code: 'mcp_not_connected' as const, reason: 'its MCP server github is not connected' },
        ],
      ]),
      expect: {
        visible: false,
        permitted: true,
        code: 'mcp_not_connected',
        reason: /its MCP server github is not connected/,
      },
    },
    {
      name: 'a tool the availability map says can run (null) is offered',
      tools: [mcp],
      usage: undefined,
      availability: new Map([['mcp.github.search', null]]),
      expect: { visible: true, permitted: true, code: null, reason: /allowed by PLATFORM/ },
    },
    {
      name: 'policy decides before availability: a denied tool that cannot run either is a denial',
      tools: [tool('x.y', { permission: 'DENY' })],
      usage: undefined,
      availability: new Map([['x.y', { code: 'tool_unavailable' as const, reason: 'no executor' }]]),
      expect: { visible: false, permitted: false, code: null, reason: /tool permission DENY/ },
    },
  ])('$name', (c) => {
    const [view] = resolvePolicy(c.tools, allowAll, ctx, c.usage, { availability: c.availability });
    expect(view!.visible).toBe(c.expect.visible);
    expect(view!.callable).toBe(c.expect.visible);
    expect(view!.permitted).toBe(c.expect.permitted);
    expect(view!.unavailable?.code ?? null).toBe(c.expect.code);
    expect(view!.reason).toMatch(c.expect.reason);
  });

  it('keeps counting remaining calls for a tool that cannot run for another reason', () => {
    const [view] = resolvePolicy([limited], allowAll, ctx, used(1), {
      availability: new Map([['x.y', { code: 'tool_unavailable', reason: 'no executor' }]]),
    });
    expect(view!.remainingCalls).toBe(1);
  });

  it.each([
    ['MODEL', false, /USER_ONLY tool: never offered to the model/],
    ['PERSON', true, /^allowed by PLATFORM/],
  ] as const)('a USER_ONLY tool for the caller %s: permitted=%s', (caller, permitted, reason) => {
    const [view] = resolvePolicy([tool('x.y', { visibility: 'USER_ONLY' })], allowAll, ctx, undefined, {
      caller,
    });
    expect(view!.permitted).toBe(permitted);
    expect(view!.visible).toBe(permitted);
    expect(view!.reason).toMatch(reason);
  });

  it('a person is still bound by denies and the default invisibility', () => {
    const userOnly = tool('x.y', { visibility: 'USER_ONLY' });
    const denied = resolvePolicy(
      [userOnly],
      [...allowAll, rule('USER', 'u1', 'x.*', 'DENY')],
      ctx,
      undefined,
      {
        caller: 'PERSON',
      },
    );
    const unlisted = resolvePolicy([userOnly], [], ctx, undefined, { caller: 'PERSON' });
    expect([denied[0]!.permitted, unlisted[0]!.permitted]).toEqual([false, false]);
    expect(denied[0]!.reason).toMatch(/denied by USER rule/);
    expect(unlisted[0]!.reason).toMatch(/invisible by default/);
  });
});

describe('resolvePolicy: rules with conditions on the arguments', () => {
  const drafts: PolicyCondition = {
    pointer: '/path',
    path: true,
    operator: 'glob',
    value: 'output/drafts/**',
  };
  const allowDrafts = () => rule('PROFILE', 'p1', 'workspace.write_file', 'ALLOW', { conditions: [drafts] });
  const askWrites = () => rule('PROFILE', 'p1', 'workspace.write_file', 'ASK');
  const forCall = (rules: PolicyRule[], args: Record<string, unknown>, t = write) =>
    resolvePolicy([t], rules, ctx, undefined, { arguments: args, canonicalPath: checkWorkspacePath })[0]!;

  interface CallCase {
    name: string;
    rules: () => PolicyRule[];
    args: Record<string, unknown>;
    permitted: boolean;
    approvalRequired: boolean;
    reason: RegExp;
    tool?: ToolSpec;
  }
  const calls: CallCase[] = [
    {
      name: 'ALLOW under output/drafts/ beside ASK of the same layer: a draft runs at once',
      rules: () => [askWrites(), allowDrafts()],
      args: { path: 'output/drafts/a.md' },
      permitted: true,
      approvalRequired: false,
      reason:
        /^allowed by PROFILE rule r\d+ \(ALLOW "workspace\.write_file" when \/path \(path\) glob "output\/drafts\/\*\*"\)$/,
    },
    {
      name: 'the same rules ask for any other path, naming the condition that did not hold',
      rules: () => [askWrites(), allowDrafts()],
      args: { path: 'notes/a.md' },
      permitted: true,
      approvalRequired: true,
      reason:
        /^approval required by PROFILE rule r\d+ \(ASK "workspace\.write_file"\); PROFILE rule r\d+ \(ALLOW .*\) does not apply: \/path \(path\) glob "output\/drafts\/\*\*" does not hold$/,
    },
    {
      name: 'traversal out of the folder is not under it: output/drafts/../../secret asks',
      rules: () => [askWrites(), allowDrafts()],
      args: { path: 'output/drafts/../../secret' },
      permitted: true,
      approvalRequired: true,
      reason: /does not hold$/,
    },
    {
      name: './ and doubled slashes are canonicalised before matching',
      rules: () => [askWrites(), allowDrafts()],
      args: { path: './output//drafts/a.md' },
      permitted: true,
      approvalRequired: false,
      reason: /^allowed by PROFILE rule/,
    },
    {
      name: 'an absolute path matches nothing',
      rules: () => [askWrites(), allowDrafts()],
      args: { path: '/output/drafts/a.md' },
      permitted: true,
      approvalRequired: true,
      reason: /does not hold$/,
    },
    {
      name: 'a backslash path matches nothing',
      rules: () => [askWrites(), allowDrafts()],
      args: { path: 'output\\drafts\\a.md' },
      permitted: true,
      approvalRequired: true,
      reason: /does not hold$/,
    },
    {
      name: 'a missing field makes the condition false',
      rules: () => [askWrites(), allowDrafts()],
      args: { content: 'x' },
      permitted: true,
      approvalRequired: true,
      reason: /does not hold$/,
    },
    {
      name: 'a value of another type makes the condition false',
      rules: () => [askWrites(), allowDrafts()],
      args: { path: ['output/drafts/a.md'] },
      permitted: true,
      approvalRequired: true,
      reason: /does not hold$/,
    },
    {
      name: 'a conditional ALLOW alone: a call outside it is allowed by no rule',
      rules: () => [allowDrafts()],
      args: { path: 'notes/a.md' },
      permitted: false,
      approvalRequired: false,
      reason: /^no rule allows this tool .*; PROFILE rule r\d+ \(ALLOW .*\) does not apply/,
    },
    {
      name: 'a conditional DENY that holds beats every allow',
      rules: () => [
        rule('PLATFORM', null, '*', 'ALLOW'),
        rule('USER', 'u1', 'workspace.*', 'DENY', {
          conditions: [{ pointer: '/path', path: true, operator: 'prefix', value: 'secret/' }],
        }),
      ],
      args: { path: 'a/../secret/key' },
      permitted: false,
      approvalRequired: false,
      reason: /^denied by USER rule r\d+ \(DENY "workspace\.\*" when \/path \(path\) prefix "secret\/"\)$/,
    },
    {
      name: 'a conditional DENY that does not hold leaves the allow',
      rules: () => [
        rule('PLATFORM', null, '*', 'ALLOW'),
        rule('USER', 'u1', 'workspace.*', 'DENY', {
          conditions: [{ pointer: '/path', path: true, operator: 'prefix', value: 'secret/' }],
        }),
      ],
      args: { path: 'secrets/key' },
      permitted: true,
      approvalRequired: false,
      reason:
        /^allowed by PLATFORM rule .*; USER rule r\d+ \(DENY .*\) does not apply: \/path \(path\) prefix "secret\/" does not hold$/,
    },
    {
      name: "a conditional ALLOW on one layer does not lift another layer's ASK",
      rules: () => [rule('PLATFORM', null, 'workspace.write_file', 'ASK'), allowDrafts()],
      args: { path: 'output/drafts/a.md' },
      permitted: true,
      approvalRequired: true,
      reason:
        /allowed by PROFILE rule .*; approval required by PLATFORM rule r\d+ \(ASK "workspace\.write_file"\)$/,
    },
    {
      name: 'a conditional ASK replaces the unconditional ALLOW of its layer',
      rules: () => [
        rule('PROFILE', 'p1', 'workspace.*', 'ALLOW'),
        rule('PROFILE', 'p1', 'workspace.write_file', 'ASK', {
          conditions: [{ pointer: '/content', path: false, operator: 'maxLength', value: 10 }],
        }),
      ],
      args: { path: 'a.md', content: 'short' },
      permitted: true,
      approvalRequired: true,
      reason:
        /^approval required by PROFILE rule r\d+ \(ASK "workspace\.write_file" when \/content maxLength 10\)$/,
    },
    {
      name: 'every condition of a rule must hold',
      rules: () => [
        askWrites(),
        rule('PROFILE', 'p1', 'workspace.write_file', 'ALLOW', {
          conditions: [
            drafts,
            { pointer: '/mode', path: false, operator: 'in', value: ['create', 'append'] },
          ],
        }),
      ],
      args: { path: 'output/drafts/a.md', mode: 'replace' },
      permitted: true,
      approvalRequired: true,
      reason: /does not apply: \/mode in \["create","append"\] does not hold$/,
    },
    {
      name: 'conditions do not lift the default approval gates: a destructive tool still asks',
      rules: () => [allowDrafts()],
      args: { path: 'output/drafts/a.md' },
      permitted: true,
      approvalRequired: true,
      reason: /destructive tools need approval by default/,
      tool: tool('workspace.write_file', {
        annotations: normalizeAnnotations({ readOnly: false, destructive: true, openWorld: false }),
      }),
    },
  ];

  it.each(calls)('$name', (c) => {
    const view = forCall(c.rules(), c.args, c.tool);
    expect(view.permitted).toBe(c.permitted);
    expect(view.approvalRequired).toBe(c.approvalRequired);
    expect(view.reason).toMatch(c.reason);
  });

  it('names the deciding rule and the conditions that decided', () => {
    const ask = askWrites();
    const allow = allowDrafts();
    const draft = forCall([ask, allow], { path: 'output/drafts/a.md' });
    expect(draft.decidingRule).toBe(allow);
    expect(draft.conditional).toBe(true);
    expect(draft.decidingConditions).toEqual([{ rule: allow, condition: drafts, holds: true }]);
    const note = forCall([ask, allow], { path: 'notes/a.md' });
    expect(note.decidingRule).toBe(ask);
    expect(note.decidingConditions).toEqual([{ rule: allow, condition: drafts, holds: false }]);
  });

  it('a condition that changes nothing is not named: the platform deny decides alone', () => {
    const deny = rule('PLATFORM', null, 'workspace.*', 'DENY');
    const view = forCall([deny, askWrites(), allowDrafts()], { path: 'notes/a.md' });
    expect(view.decidingRule).toBe(deny);
    expect(view.conditional).toBe(false);
    expect(view.decidingConditions).toEqual([]);
    expect(view.reason).toMatch(/^denied by PLATFORM rule r\d+ \(DENY "workspace\.\*"\)$/);
  });

  it('a reason names at most three rules that did not apply, and counts the rest', () => {
    const allows = Array.from({ length: 5 }, (_, i) =>
      rule('PROFILE', 'p1', 'workspace.write_file', 'ALLOW', {
        conditions: [{ pointer: '/path', path: true, operator: 'prefix', value: `d${i}/` }],
      }),
    );
    const view = forCall([askWrites(), ...allows], { path: 'notes/a.md' });
    expect(view.reason.match(/does not apply/g)).toHaveLength(3);
    expect(view.reason).toMatch(/ and 2 more$/);
    expect(view.decidingConditions).toHaveLength(5);
  });

  describe('without arguments (effectiveTools)', () => {
    const view = (rules: PolicyRule[], t = write) => resolvePolicy([t], rules, ctx)[0]!;

    it('a tool whose outcome a condition could change is conditional and shows the outcome without it', () => {
      const v = view([askWrites(), allowDrafts()]);
      expect(v).toMatchObject({
        visible: true,
        approvalRequired: true,
        conditional: true,
        decidingConditions: [],
      });
      expect(v.reason).toMatch(
        /^approval required by PROFILE rule .*; depends on the arguments: PROFILE rule r\d+ \(ALLOW/,
      );
    });

    it('a tool only a conditional rule allows is offered, since some calls are allowed', () => {
      const v = view([allowDrafts()]);
      expect(v).toMatchObject({ visible: true, permitted: true, approvalRequired: false, conditional: true });
      expect(v.reason).toMatch(
        /^allowed by PROFILE rule r\d+ \(ALLOW "workspace\.write_file" when .*; depends on the arguments/,
      );
    });

    it('a tool a conditional DENY could hide is still offered, and conditional', () => {
      const deny = rule('USER', 'u1', '*', 'DENY', { conditions: [drafts] });
      expect(view([rule('PLATFORM', null, '*', 'ALLOW'), deny])).toMatchObject({
        visible: true,
        conditional: true,
      });
    });

    it('a condition that could change nothing leaves the tool unconditional', () => {
      const v = view([rule('PLATFORM', null, '*', 'DENY'), allowDrafts()]);
      expect(v).toMatchObject({ visible: false, conditional: false });
      expect(v.reason).toMatch(/^denied by PLATFORM rule r\d+ \(DENY "\*"\)$/);
      expect(view([rule('PROFILE', 'p1', '*', 'ALLOW'), allowDrafts()]).conditional).toBe(false);
    });

    it('more than eight rules with conditions on one tool: conditional without trying each combination', () => {
      const allows = Array.from({ length: 9 }, () => allowDrafts());
      const v = view([rule('PROFILE', 'p1', '*', 'ALLOW'), ...allows]);
      expect(v).toMatchObject({ visible: true, conditional: true });
      expect(v.reason).toMatch(/ and 6 more$/);
    });

    it('a tool without rules with conditions is never conditional', () => {
      expect(view([rule('PLATFORM', null, '*', 'ALLOW')]).conditional).toBe(false);
    });
  });
});

describe('patternMatches', () => {
  it.each([
    ['workspace.*', 'workspace.read_file', true],
    ['workspace.*', 'workspacex.read_file', false],
    ['mcp.*', 'mcp.github.search', true],
    ['*', 'any.thing', true],
    ['workspace.read_file', 'workspace.read_file', true],
    ['workspace.read_file', 'workspace.read_files', false],
    ['ext.?.roll', 'ext.a.roll', true],
    ['ext.?.roll', 'ext.ab.roll', false],
  ])('%s against %s is %s', (pattern, name, expected) => {
    expect(patternMatches(pattern, name)).toBe(expected);
  });
});
