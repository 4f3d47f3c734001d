import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import type { RunRow } from '../../../src/calls/tables.js';
import { runTest } from '../../support/fixtures.js';
import { admin, agent, approver, eventTypes, newRun, waitFor } from '../../support/lifecycle.js';

/** `run` may call every test tool, and test.echo needs a person's approval. */
const test = runTest.extend<{ run: RunRow }>({
  run: async ({ services, run }, use) => {
    await services.policy.set(
      { layer: 'USER', scopeId: 'u1', toolPattern: 'test.echo', effect: 'ASK' },
      admin,
    );
    await use(run);
  },
});

const APPROVE = `mutation($id: ID!, $scope: GrantScope, $grantConditions: [PolicyConditionInput!]) {
  approveToolCall(id: $id, scope: $scope, grantConditions: $grantConditions) { id status }
}`;

const GRANTS = `query($runId: ID, $userId: ID, $includeRevoked: Boolean) {
  grants(runId: $runId, userId: $userId, includeRevoked: $includeRevoked) {
    id scope toolName runId userId profileId ruleId createdBy revokedAt revokedBy
    conditions { pointer path operator value }
    sourceCall { id }
  }
}`;

const echo = (services: Services, runId: string, text: string) =>
  services.calls.request({ runId, name: 'test.echo', arguments: { text } }, agent);

describe('RUN grants', () => {
  test('a RUN approval approves the next call to the tool in that run without asking, naming the grant', async ({
    services,
    run,
    gql,
    tokens,
  }) => {
    const first = await echo(services, run.id, 'one');
    const approved = await gql(APPROVE, { id: first.id, scope: 'RUN' }, tokens.APPROVER);
    expect(approved.errors).toBeUndefined();
    expect(approved.data!.approveToolCall).toEqual({ id: first.id, status: 'APPROVED' });
    const [grant] = await services.grants.list({ runId: run.id }, admin);

    const requested = await echo(services, run.id, 'two');
    // The grant's tool_call_approved event can wake this process's dispatcher before the request's
    // own dispatch, so the request may answer while the call is still STARTED.
    const next = await waitFor(async () => {
      const call = await services.calls.get(requested.id);
      return call?.status === 'COMPLETED' && call;
    });
    expect(next.approvalRequired).toBe(true);
    expect(next.policyReason).toBe(
      `approval required by USER rule ${(await services.policy.list({ layer: 'USER' }))[0]!.id} (ASK "test.echo"); approved without asking by RUN grant ${grant!.id} of approver:test-approver`,
    );
    expect(next.decision).toMatchObject({
      approved: true,
      decidedBy: 'approver:test-approver',
      reason: `approved without asking by RUN grant ${grant!.id} of approver:test-approver`,
      argumentsHash: next.argumentsHash,
    });
    const events = await services.journal.read({ callId: next.id, limit: 10 });
    expect(events.map((e) => e.type)).toEqual([
      'tool_call_requested',
      'tool_call_approved',
      'tool_call_started',
      'tool_call_completed',
    ]);
    expect(events[1]).toMatchObject({ actor: 'system', payload: { grantId: grant!.id } });
  });

  test('the grant is listed with who made it, when, and the call it came from', async ({
    services,
    run,
    gql,
    tokens,
  }) => {
    const first = await echo(services, run.id, 'one');
    const before = Date.now();
    await gql(APPROVE, { id: first.id, scope: 'RUN' }, tokens.APPROVER);
    const res = await gql(GRANTS, { runId: run.id }, tokens.VIEWER);
    expect(res.errors).toBeUndefined();
    expect(res.data!.grants).toEqual([
      {
        id: expect.any(String),
        scope: 'RUN',
        toolName: 'test.echo',
        runId: run.id,
        userId: 'u1',
        profileId: null,
        ruleId: null,
        createdBy: 'approver:test-approver',
        revokedAt: null,
        revokedBy: null,
        conditions: [],
        sourceCall: { id: first.id },
      },
    ]);
    const [row] = await services.grants.list({ runId: run.id }, admin);
    expect(row!.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  test('a RUN grant covers only its run: the same tool in another run of the same user still asks', async ({
    services,
    run,
  }) => {
    const first = await echo(services, run.id, 'one');
    await services.calls.approve(first.id, { scope: 'RUN' }, approver);
    const other = await newRun(services);
    const elsewhere = await echo(services, other.id, 'two');
    expect(elsewhere.status).toBe('AWAITING_APPROVAL');
  });

  test('a ONCE approval (the default) grants nothing: the next call asks again', async ({
    services,
    run,
  }) => {
    const first = await echo(services, run.id, 'one');
    await services.calls.approve(first.id, {}, approver);
    expect(await services.grants.list({ runId: run.id }, admin)).toEqual([]);
    expect((await echo(services, run.id, 'two')).status).toBe('AWAITING_APPROVAL');
  });

  test('conditions narrow it: only arguments matching them are approved, others ask', async ({
    services,
    run,
    gql,
    tokens,
  }) => {
    const first = await echo(services, run.id, 'draft: one');
    const res = await gql(
      APPROVE,
      { id: first.id, scope: 'RUN', grantConditions: [{ pointer: '/text', prefix: 'draft:' }] },
      tokens.APPROVER,
    );
    expect(res.errors).toBeUndefined();
    expect((await echo(services, run.id, 'draft: two')).status).toBe('COMPLETED');
    expect((await echo(services, run.id, 'final: three')).status).toBe('AWAITING_APPROVAL');
  });

  test('revoking a RUN grant makes the next call ask again', async ({ services, run, gql, tokens }) => {
    const first = await echo(services, run.id, 'one');
    await services.calls.approve(first.id, { scope: 'RUN' }, approver);
    const [grant] = await services.grants.list({ runId: run.id }, admin);
    const res = await gql(
      'mutation($id: ID!) { revokeGrant(id: $id) { id revokedBy revokedAt } }',
      { id: grant!.id },
      tokens.APPROVER,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.revokeGrant).toMatchObject({ id: grant!.id, revokedBy: 'approver:test-approver' });
    expect(res.data!.revokeGrant.revokedAt).not.toBeNull();
    expect((await echo(services, run.id, 'two')).status).toBe('AWAITING_APPROVAL');
    expect(await services.grants.list({ runId: run.id }, admin)).toEqual([]);
    expect(await services.grants.list({ runId: run.id, includeRevoked: true }, admin)).toHaveLength(1);
  });

  test('revoking twice is CONFLICT', async ({ services, run, gql }) => {
    const first = await echo(services, run.id, 'one');
    await services.calls.approve(first.id, { scope: 'RUN' }, approver);
    const [grant] = await services.grants.list({ runId: run.id }, admin);
    await services.grants.revoke(grant!.id, admin);
    const res = await gql('mutation($id: ID!) { revokeGrant(id: $id) { id } }', { id: grant!.id });
    expect(res.errors![0]!.extensions!.code).toBe('CONFLICT');
  });

  test('a per-call denial after a grant still denies: an identical denied call is refused, not granted', async ({
    services,
    run,
  }) => {
    const refused = await echo(services, run.id, 'rm -rf /');
    await services.calls.deny(refused.id, { reason: 'no' }, approver);
    const first = await echo(services, run.id, 'one');
    await services.calls.approve(first.id, { scope: 'RUN' }, approver);

    const again = await echo(services, run.id, 'rm -rf /');
    expect(again.status).toBe('DENIED');
    expect(again.decision).toMatchObject({ approved: false, repeatOf: refused.id });
    expect(await eventTypes(services, { callId: again.id })).toEqual([
      'tool_call_requested',
      'tool_call_denied',
    ]);
    expect((await echo(services, run.id, 'two')).status).toBe('COMPLETED');
  });

  test('a policy DENY wins over a RUN grant', async ({ services, run }) => {
    const first = await echo(services, run.id, 'one');
    await services.calls.approve(first.id, { scope: 'RUN' }, approver);
    await services.policy.set(
      { layer: 'USER', scopeId: 'u1', toolPattern: 'test.echo', effect: 'DENY', reason: 'stop' },
      admin,
    );
    const next = await echo(services, run.id, 'two');
    expect(next.status).toBe('FAILED');
    expect(next.error).toMatchObject({ kind: 'POLICY_DENIED' });
    expect(await eventTypes(services, { callId: next.id })).toEqual([
      'tool_call_requested',
      'policy_violation',
      'tool_call_failed',
    ]);
  });

  test('a grant never lets a call skip its schema: invalid arguments still fail', async ({
    services,
    run,
  }) => {
    const first = await echo(services, run.id, 'one');
    await services.calls.approve(first.id, { scope: 'RUN' }, approver);
    const bad = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 1 } },
      agent,
    );
    expect(bad.status).toBe('FAILED');
    expect(bad.error).toMatchObject({ code: 'invalid_arguments' });
  });
});
