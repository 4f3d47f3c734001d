import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import type { RunRow } from '../../../src/calls/tables.js';
import { runTest as test } from '../../support/fixtures.js';
import { admin, approver, newRun } from '../../support/lifecycle.js';
import { pendingCall } from '../../support/people.js';

const PREVIEW = `query($callId: ID!, $scope: GrantScope!, $conditions: [PolicyConditionInput!], $profileId: ID) {
  grantPreview(callId: $callId, scope: $scope, conditions: $conditions, profileId: $profileId) {
    scope toolName layer userId profileId runId rule summary
    conditions { pointer path operator value }
  }
}`;

const APPROVE = `mutation($id: ID!, $scope: GrantScope, $grantConditions: [PolicyConditionInput!], $grantProfileId: ID) {
  approveToolCall(id: $id, scope: $scope, grantConditions: $grantConditions, grantProfileId: $grantProfileId) { id status }
}`;

const RULES = `query($layer: PolicyLayer) {
  policyRules(layer: $layer) { layer scopeId toolPattern effect skipApproval reason conditions { pointer path operator value } }
}`;

/** The rule in the form setPolicyRule returns it, for comparing with what policyRules lists. */
const asListed = (rule: Record<string, unknown>) => ({
  layer: rule.layer,
  scopeId: rule.scopeId,
  toolPattern: rule.toolPattern,
  effect: rule.effect,
  skipApproval: rule.skipApproval,
  reason: rule.reason,
  conditions: [],
});

/** test.dangerous asks by the default gate for destructive tools (an ALLOW with skipApproval lifts it). */
const dangerous = (services: Services, run: RunRow) => pendingCall(services, run);

describe('ALWAYS grants', () => {
  test('the preview shows the exact rule, and approving with ALWAYS saves exactly that rule', async ({
    services,
    run,
    gql,
    tokens,
  }) => {
    const call = await dangerous(services, run);
    const preview = await gql(PREVIEW, { callId: call.id, scope: 'ALWAYS' }, tokens.APPROVER);
    expect(preview.errors).toBeUndefined();
    const rule = {
      layer: 'USER',
      scopeId: 'u1',
      toolPattern: 'test.dangerous',
      effect: 'ALLOW',
      skipApproval: true,
      reason: `always allowed by approver:test-approver when approving call ${call.id}`,
      conditions: [],
    };
    expect(preview.data!.grantPreview).toEqual({
      scope: 'ALWAYS',
      toolName: 'test.dangerous',
      layer: 'USER',
      userId: 'u1',
      profileId: null,
      runId: null,
      rule,
      conditions: [],
      summary:
        'Saves the policy rule USER u1: ALLOW "test.dangerous", waiving the default approval gates, for every run of user u1. An ASK or DENY of another layer still applies. Revoking the grant removes the rule.',
    });
    expect(await services.policy.list({ layer: 'USER' })).toEqual([]);

    const approved = await gql(APPROVE, { id: call.id, scope: 'ALWAYS' }, tokens.APPROVER);
    expect(approved.errors).toBeUndefined();
    const rules = await gql(RULES, { layer: 'USER' });
    expect(rules.data!.policyRules).toEqual([asListed(rule)]);
    const [grant] = await services.grants.list({ userId: 'u1' }, admin);
    const [saved] = await services.policy.list({ layer: 'USER' });
    expect(grant).toMatchObject({
      scope: 'ALWAYS',
      toolName: 'test.dangerous',
      userId: 'u1',
      runId: null,
      ruleId: saved!.id,
      sourceCallId: call.id,
      createdBy: 'approver:test-approver',
    });
  });

  test('the saved rule approves the tool in every run of the user; revoking removes it and the next call asks', async ({
    services,
    run,
  }) => {
    const call = await dangerous(services, run);
    await services.calls.approve(call.id, { scope: 'ALWAYS' }, approver);
    const later = await newRun(services);
    const next = await dangerous(services, later);
    expect(next.status).toBe('COMPLETED');
    expect(next.approvalRequired).toBe(false);

    const [grant] = await services.grants.list({ userId: 'u1' }, admin);
    const revoked = await services.grants.revoke(grant!.id, approver);
    expect(revoked.revokedBy).toBe('approver:alice');
    expect(await services.policy.list({ layer: 'USER' })).toEqual([]);
    expect((await dangerous(services, later)).status).toBe('AWAITING_APPROVAL');
  });

  test('with conditions the rule carries them exactly as previewed', async ({
    services,
    run,
    gql,
    tokens,
  }) => {
    await services.policy.set(
      { layer: 'USER', scopeId: 'u1', toolPattern: 'test.echo', effect: 'ASK' },
      admin,
    );
    const call = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 'output/drafts/a.md' } },
      admin,
    );
    const conditions = [{ pointer: '/text', path: true, glob: 'output/drafts/**' }];
    const preview = await gql(PREVIEW, { callId: call.id, scope: 'ALWAYS', conditions }, tokens.APPROVER);
    expect(preview.data!.grantPreview.rule.conditions).toEqual([
      { pointer: '/text', path: true, glob: 'output/drafts/**' },
    ]);
    expect(preview.data!.grantPreview.conditions).toEqual([
      { pointer: '/text', path: true, operator: 'glob', value: 'output/drafts/**' },
    ]);
    await gql(APPROVE, { id: call.id, scope: 'ALWAYS', grantConditions: conditions }, tokens.APPROVER);
    const rules = (await gql(RULES, { layer: 'USER' })).data!.policyRules;
    expect(rules[1]).toEqual({
      ...asListed(preview.data!.grantPreview.rule),
      conditions: preview.data!.grantPreview.conditions,
    });
    const echo = (text: string) =>
      services.calls.request({ runId: run.id, name: 'test.echo', arguments: { text } }, admin);
    expect((await echo('output/drafts/b.md')).status).toBe('COMPLETED');
    expect((await echo('output/drafts/../../secret')).status).toBe('AWAITING_APPROVAL');
  });

  test('an admin may save it on a profile instead; the grant names the profile and no user', async ({
    services,
    run,
    gql,
  }) => {
    const call = await dangerous(services, run);
    const preview = await gql(PREVIEW, { callId: call.id, scope: 'ALWAYS', profileId: 'p1' });
    expect(preview.data!.grantPreview).toMatchObject({ layer: 'PROFILE', profileId: 'p1', userId: null });
    const res = await gql(APPROVE, { id: call.id, scope: 'ALWAYS', grantProfileId: 'p1' });
    expect(res.errors).toBeUndefined();
    const rules = (await gql(RULES, { layer: 'PROFILE' })).data!.policyRules;
    expect(rules).toContainEqual(asListed(preview.data!.grantPreview.rule));
    const [grant] = await services.grants.list({}, admin);
    expect(grant).toMatchObject({ scope: 'ALWAYS', profileId: 'p1', userId: null });
  });

  test('a RUN preview names the run and saves no rule', async ({ services, run, gql, tokens }) => {
    const call = await dangerous(services, run);
    const res = await gql(
      PREVIEW,
      { callId: call.id, scope: 'RUN', conditions: [{ pointer: '/x', equals: 1 }] },
      tokens.APPROVER,
    );
    expect(res.data!.grantPreview).toEqual({
      scope: 'RUN',
      toolName: 'test.dangerous',
      layer: null,
      userId: 'u1',
      profileId: null,
      runId: run.id,
      rule: null,
      conditions: [{ pointer: '/x', path: false, operator: 'equals', value: 1 }],
      summary: `Approves every later call to test.dangerous when /x equals 1 in run ${run.id} without asking, until the run ends or the grant is revoked. A policy DENY and an earlier denial of an identical call still win.`,
    });
  });
});
