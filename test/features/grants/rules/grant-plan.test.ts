import { describe, expect, test } from 'vitest';
import type { PolicyCondition } from '../../../../src/core/policy-conditions.js';
import {
  conditionInputOf,
  grantCovers,
  planGrant,
} from '../../../../src/features/grants/rules/grant-plan.js';
import { checkWorkspacePath } from '../../../../src/features/workspace/rules/paths.js';

const call = { id: 'c1', name: 'workspace.write_file' };
const run = { id: 'r1', userId: 'u1' };
const drafts: PolicyCondition = { pointer: '/path', path: true, operator: 'glob', value: 'output/drafts/**' };

describe('planGrant', () => {
  test('ALWAYS on the run’s user: an ALLOW rule for exactly this tool, waiving the default gates', () => {
    const planned = planGrant({
      scope: 'ALWAYS',
      call,
      run,
      conditions: [drafts],
      profileId: null,
      actor: 'approver:a',
    });
    expect(planned).toMatchObject({
      plan: {
        layer: 'USER',
        userId: 'u1',
        profileId: null,
        runId: null,
        rule: {
          layer: 'USER',
          scopeId: 'u1',
          toolPattern: 'workspace.write_file',
          effect: 'ALLOW',
          skipApproval: true,
          reason: 'always allowed by approver:a when approving call c1',
          conditions: [{ pointer: '/path', path: true, glob: 'output/drafts/**' }],
        },
      },
    });
  });

  test('ALWAYS on a profile names the profile and no user', () => {
    const planned = planGrant({
      scope: 'ALWAYS',
      call,
      run,
      conditions: [],
      profileId: 'p1',
      actor: 'admin:root',
    });
    expect(planned).toMatchObject({
      plan: { layer: 'PROFILE', userId: null, profileId: 'p1', rule: { scopeId: 'p1' } },
    });
  });

  test('ALWAYS for a run without a user and no profile has no layer to go on', () => {
    expect(
      planGrant({
        scope: 'ALWAYS',
        call,
        run: { id: 'r1', userId: null },
        conditions: [],
        profileId: null,
        actor: 'x',
      }),
    ).toEqual({
      problem:
        'run r1 has no user, so there is no USER layer to save the rule on; an admin may give grantProfileId',
    });
  });

  test('RUN names the run and saves no rule; ONCE grants nothing', () => {
    expect(planGrant({ scope: 'RUN', call, run, conditions: [], profileId: null, actor: 'x' })).toMatchObject(
      {
        plan: { runId: 'r1', userId: 'u1', layer: null, rule: null },
      },
    );
    expect(
      planGrant({ scope: 'ONCE', call, run, conditions: [drafts], profileId: null, actor: 'x' }),
    ).toMatchObject({
      plan: { runId: null, rule: null, conditions: [] },
    });
  });
});

describe('conditionInputOf', () => {
  test.each<PolicyCondition>([
    drafts,
    { pointer: '/a', path: false, operator: 'prefix', value: 'x' },
    { pointer: '/a', path: false, operator: 'equals', value: 1 },
    { pointer: '/a', path: false, operator: 'in', value: ['a', 2, true] },
    { pointer: '/a', path: false, operator: 'maxLength', value: 3 },
  ])('gives the input that stores the same condition: %j', (condition) => {
    const input = conditionInputOf(condition);
    expect(input).toEqual({
      pointer: condition.pointer,
      path: condition.path,
      [condition.operator]: condition.value,
    });
  });
});

describe('grantCovers', () => {
  const grant = { toolName: 'workspace.write_file', conditions: [drafts] };
  test.each<[string, string, Record<string, unknown>, boolean]>([
    ['the same tool with matching arguments', 'workspace.write_file', { path: 'output/drafts/a.md' }, true],
    [
      'a path spelled another way that is the same path',
      'workspace.write_file',
      { path: './output//drafts/a.md' },
      true,
    ],
    ['a traversal out of the folder', 'workspace.write_file', { path: 'output/drafts/../../secret' }, false],
    ['another folder', 'workspace.write_file', { path: 'output/final/a.md' }, false],
    ['a missing field', 'workspace.write_file', {}, false],
    ['a value of another type', 'workspace.write_file', { path: 7 }, false],
    ['another tool', 'workspace.read_file', { path: 'output/drafts/a.md' }, false],
  ])('%s: %s', (_name, tool, args, expected) => {
    expect(grantCovers(grant, tool, args, checkWorkspacePath)).toBe(expected);
  });

  test('a grant without conditions covers every call of its tool', () => {
    expect(grantCovers({ toolName: 't', conditions: [] }, 't', { anything: 1 }, checkWorkspacePath)).toBe(
      true,
    );
  });
});
