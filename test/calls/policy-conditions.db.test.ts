import { describe, expect } from 'vitest';
import type { Services } from '../../src/app/services.js';
import type { RunRow } from '../../src/calls/tables.js';
import type { Gql } from '../support/fixtures.js';
import { workspaceTest as test } from '../support/fixtures.js';
import { eventTypes } from '../support/lifecycle.js';
import { call } from '../support/workspace.js';

const setRule = `mutation($input: PolicyRuleInput!) { setPolicyRule(input: $input) {
  id layer effect conditions { pointer path operator value } } }`;
const explain = `query($context: PolicyContextInput!, $tool: String!, $arguments: JSON!) {
  policyExplain(context: $context, tool: $tool, arguments: $arguments) {
    tool outcome effect approvalRequired reason
    decidingRule { id layer effect }
    decidingConditions { ruleId layer holds condition { pointer path operator value } }
    argumentIssues { path message } } }`;

const drafts = { pointer: '/path', path: true, glob: 'output/drafts/**' };

/**
 * The workspace run's profile p1 may call every workspace tool (workspaceTest); on the same
 * PROFILE layer, writes ask, except under output/drafts/.
 */
async function draftsRules(gql: Gql) {
  const ask = await gql(setRule, {
    input: { layer: 'PROFILE', scopeId: 'p1', toolPattern: 'workspace.write_file', effect: 'ASK' },
  });
  const allow = await gql(setRule, {
    input: {
      layer: 'PROFILE',
      scopeId: 'p1',
      toolPattern: 'workspace.write_file',
      effect: 'ALLOW',
      reason: 'drafts are cheap',
      conditions: [drafts],
    },
  });
  return { ask: ask.data!.setPolicyRule, allow: allow.data!.setPolicyRule };
}

const write = (services: Services, run: RunRow, path: string) =>
  call(services, run.id, 'write_file', { path, content: 'draft', mode: 'create' });

const explainFor = async (gql: Gql, run: RunRow, path: unknown) =>
  (
    await gql(explain, {
      context: { userId: run.userId, profileId: run.profileId },
      tool: 'workspace.write_file',
      arguments: { path, content: 'draft', mode: 'create' },
    })
  ).data!.policyExplain;

describe('policy rules with conditions on the arguments', () => {
  test('setPolicyRule stores the conditions and policyRules lists them as stored', async ({ gql }) => {
    const { allow } = await draftsRules(gql);
    const stored = { pointer: '/path', path: true, operator: 'glob', value: 'output/drafts/**' };
    expect(allow.conditions).toEqual([stored]);
    const listed = await gql(
      `{ policyRules(layer: PROFILE, scopeId: "p1") { id conditions { pointer path operator value } } }`,
    );
    expect(listed.data!.policyRules).toContainEqual({ id: allow.id, conditions: [stored] });
  });

  test('a write under output/drafts/ runs at once, its policyReason naming the condition', async ({
    gql,
    services,
    run,
  }) => {
    const { allow } = await draftsRules(gql);
    const done = await write(services, run, 'output/drafts/a.md');
    expect(done).toMatchObject({ status: 'COMPLETED', approvalRequired: false });
    expect(done.policyReason).toBe(
      `allowed by PROFILE rule ${allow.id} (ALLOW "workspace.write_file" when /path (path) glob "output/drafts/**"): drafts are cheap`,
    );
    expect(await eventTypes(services, { callId: done.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'workspace_changed',
      'checkpoint_created',
      'tool_call_completed',
    ]);
  });

  test('a write to notes/a.md asks, its policyReason naming the condition that did not hold', async ({
    gql,
    services,
    run,
  }) => {
    const { ask, allow } = await draftsRules(gql);
    const held = await write(services, run, 'notes/a.md');
    expect(held).toMatchObject({ status: 'AWAITING_APPROVAL', approvalRequired: true });
    // workspaceTest's PROFILE ALLOW workspace.* is the unconditional grant beside the ASK.
    expect(held.policyReason).toMatch(/^allowed by PROFILE rule \S+ \(ALLOW "workspace\.\*"\); /);
    expect(held.policyReason!.split('; ').slice(1).join('; ')).toBe(
      `approval required by PROFILE rule ${ask.id} (ASK "workspace.write_file"); PROFILE rule ${allow.id} (ALLOW "workspace.write_file" when /path (path) glob "output/drafts/**") does not apply: /path (path) glob "output/drafts/**" does not hold`,
    );
  });

  test.for([
    'output/drafts/../../notes/a.md',
    'output/drafts/../secret',
    '/output/drafts/a.md',
    'output\\drafts\\a.md',
  ])(
    'a traversal or foreign path (%s) is not under output/drafts/: the call asks',
    async (path, { gql, services, run }) => {
      await draftsRules(gql);
      const held = await write(services, run, path);
      expect(held.status).toBe('AWAITING_APPROVAL');
      expect(held.policyReason).toMatch(
        /does not apply: \/path \(path\) glob "output\/drafts\/\*\*" does not hold$/,
      );
    },
  );

  test('./output/drafts/x is the canonical output/drafts/x: the call runs at once', async ({
    gql,
    services,
    run,
  }) => {
    await draftsRules(gql);
    expect((await write(services, run, './output/drafts/x.md')).status).toBe('COMPLETED');
  });

  test('effectiveTools marks the tool a condition could change as conditional, and only it', async ({
    gql,
    run,
  }) => {
    await draftsRules(gql);
    const res = await gql(
      `query($context: PolicyContextInput!) { effectiveTools(context: $context) { tool { name } approvalRequired conditional reason } }`,
      { context: { userId: run.userId, profileId: run.profileId } },
    );
    const byName = Object.fromEntries(
      res.data!.effectiveTools.map((t: { tool: { name: string } }) => [t.tool.name, t]),
    );
    expect(byName['workspace.write_file']).toMatchObject({ approvalRequired: true, conditional: true });
    expect(byName['workspace.write_file'].reason).toMatch(
      /; depends on the arguments: PROFILE rule .* when \/path/,
    );
    expect(byName['workspace.read_file']).toMatchObject({ approvalRequired: false, conditional: false });
  });
});

describe('policyExplain agrees with what the real call does', () => {
  test('a draft: ACCEPTED and ALLOW, decided by the conditional rule, with the same reason as the call', async ({
    gql,
    services,
    run,
  }) => {
    const { allow } = await draftsRules(gql);
    const explained = await explainFor(gql, run, 'output/drafts/a.md');
    const done = await write(services, run, 'output/drafts/a.md');
    expect(done.status).toBe('COMPLETED');
    expect(explained).toEqual({
      tool: 'workspace.write_file',
      outcome: 'ACCEPTED',
      effect: 'ALLOW',
      approvalRequired: false,
      reason: done.policyReason,
      decidingRule: { id: allow.id, layer: 'PROFILE', effect: 'ALLOW' },
      decidingConditions: [
        {
          ruleId: allow.id,
          layer: 'PROFILE',
          holds: true,
          condition: { pointer: '/path', path: true, operator: 'glob', value: 'output/drafts/**' },
        },
      ],
      argumentIssues: [],
    });
  });

  test('notes/a.md: AWAITING_APPROVAL and ASK, decided by the ASK rule and the failing condition', async ({
    gql,
    services,
    run,
  }) => {
    const { ask, allow } = await draftsRules(gql);
    const explained = await explainFor(gql, run, 'notes/a.md');
    const held = await write(services, run, 'notes/a.md');
    expect(held.status).toBe('AWAITING_APPROVAL');
    expect(explained).toMatchObject({
      outcome: 'AWAITING_APPROVAL',
      effect: 'ASK',
      approvalRequired: true,
      reason: held.policyReason,
      decidingRule: { id: ask.id, layer: 'PROFILE', effect: 'ASK' },
      decidingConditions: [{ ruleId: allow.id, holds: false }],
    });
  });

  test('arguments that fail the schema: INVALID_ARGUMENTS, as the call fails, and no condition is tested', async ({
    gql,
    services,
    run,
  }) => {
    await draftsRules(gql);
    const explained = await explainFor(gql, run, 7);
    const failed = await write(services, run, 7 as never);
    expect(failed.status).toBe('FAILED');
    expect(failed.error).toMatchObject({ kind: 'RECOVERABLE', code: 'invalid_arguments' });
    expect(explained).toMatchObject({
      outcome: 'INVALID_ARGUMENTS',
      effect: 'ASK',
      decidingConditions: [],
      argumentIssues: [{ path: '/path', message: expect.stringMatching(/string/) }],
    });
    expect(explained.reason).toBe(failed.policyReason);
  });

  test('a conditional DENY that holds: POLICY_DENIED, as the call is refused', async ({
    gql,
    services,
    run,
  }) => {
    const deny = await gql(setRule, {
      input: {
        layer: 'USER',
        scopeId: 'u1',
        toolPattern: 'workspace.*',
        effect: 'DENY',
        conditions: [{ pointer: '/path', path: true, prefix: 'persist/' }],
      },
    });
    const explained = await explainFor(gql, run, 'scratch/../persist/key');
    const refused = await write(services, run, 'scratch/../persist/key');
    expect(refused.status).toBe('FAILED');
    expect(refused.error).toMatchObject({ kind: 'POLICY_DENIED' });
    expect(explained).toMatchObject({
      outcome: 'POLICY_DENIED',
      effect: 'DENY',
      decidingRule: { id: deny.data!.setPolicyRule.id, layer: 'USER', effect: 'DENY' },
      reason: refused.policyReason,
    });
  });

  test('an unknown tool: UNKNOWN_TOOL, DENY, no rule', async ({ gql, run }) => {
    const res = await gql(explain, {
      context: { userId: run.userId, profileId: run.profileId },
      tool: 'no.such_tool',
      arguments: {},
    });
    expect(res.data!.policyExplain).toMatchObject({
      outcome: 'UNKNOWN_TOOL',
      effect: 'DENY',
      reason: 'unknown tool',
      decidingRule: null,
    });
  });

  test('explaining records nothing: no call, no journal event', async ({ gql, services, run }) => {
    await draftsRules(gql);
    const before = await eventTypes(services, { runId: run.id });
    await explainFor(gql, run, 'output/drafts/a.md');
    expect(await eventTypes(services, { runId: run.id })).toEqual(before);
    expect(await services.calls.page({ runId: run.id, limit: 10, inverted: false })).toEqual([]);
  });
});

describe('hostile input is refused with BAD_USER_INPUT naming the field', () => {
  const base = { layer: 'PLATFORM', toolPattern: 'workspace.write_file', effect: 'ALLOW' };
  test.for([
    [
      'a pointer without a leading slash',
      [{ pointer: 'path', glob: 'x' }],
      'input.conditions.0.pointer: must be a JSON pointer (RFC 6901) into the arguments, such as /path',
    ],
    [
      'a bad ~ escape',
      [{ pointer: '/a~x', glob: 'x' }],
      'input.conditions.0.pointer: must be a JSON pointer (RFC 6901) into the arguments, such as /path',
    ],
    [
      'no operator',
      [{ pointer: '/path' }],
      'input.conditions.0: needs exactly one of glob, prefix, equals, in, maxLength (got none)',
    ],
    [
      'two operators',
      [{ pointer: '/path', glob: 'a', prefix: 'b' }],
      'input.conditions.0: needs exactly one of glob, prefix, equals, in, maxLength (got glob, prefix)',
    ],
    [
      'seventeen conditions',
      Array.from({ length: 17 }, () => ({ pointer: '/p', equals: 'x' })),
      'input.conditions: at most 16 conditions per rule',
    ],
    [
      'an `in` of 101 values',
      [{ pointer: '/p', in: Array.from({ length: 101 }, (_, i) => i) }],
      'input.conditions.0.in: Too big: expected array to have <=100 items',
    ],
    [
      'a glob over 1024 characters',
      [{ pointer: '/p', glob: '*'.repeat(1025) }],
      'input.conditions.0.glob: Too big: expected string to have <=1024 characters',
    ],
    ['an object to equal', [{ pointer: '/p', equals: { a: 1 } }], 'input.conditions.0.equals: Invalid input'],
    [
      'a number for a path to equal',
      [{ pointer: '/path', path: true, equals: 3 }],
      'input.conditions.0.equals: a path condition compares paths: give strings',
    ],
    [
      'a negative maxLength',
      [{ pointer: '/p', maxLength: -1 }],
      'input.conditions.0.maxLength: Too small: expected number to be >=0',
    ],
  ] as const)('setPolicyRule with %s', async ([, conditions, message], { gql }) => {
    const res = await gql(setRule, { input: { ...base, conditions } });
    expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(res.errors![0]!.message).toBe(message);
    expect((await gql('{ policyRules { id } }')).data!.policyRules).toEqual([]);
  });

  test.for([
    [
      'arguments that are not an object',
      { tool: 'test.echo', arguments: 'x' },
      'arguments: Invalid input: expected record, received string',
    ],
    [
      'a list for arguments',
      { tool: 'test.echo', arguments: [1] },
      'arguments: Invalid input: expected record, received array',
    ],
    [
      'arguments over 256 KiB',
      { tool: 'test.echo', arguments: { t: 'x'.repeat(262_144) } },
      'arguments: must be at most 256 KiB of JSON',
    ],
    [
      'an empty tool name',
      { tool: '', arguments: {} },
      'tool: Too small: expected string to have >=1 characters',
    ],
  ] as const)('policyExplain with %s', async ([, variables, message], { gql }) => {
    const res = await gql(explain, { context: { userId: 'u1' }, ...variables });
    expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(res.errors![0]!.message).toBe(message);
  });
});
