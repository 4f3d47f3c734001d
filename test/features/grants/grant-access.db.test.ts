import { describe, expect } from 'vitest';
import { runTest as test } from '../../support/fixtures.js';
import { admin, allow, approver, eventTypes } from '../../support/lifecycle.js';
import { pendingCall, runFor } from '../../support/people.js';

const APPROVE = `mutation($id: ID!, $scope: GrantScope, $grantConditions: [PolicyConditionInput!], $grantProfileId: ID) {
  approveToolCall(id: $id, scope: $scope, grantConditions: $grantConditions, grantProfileId: $grantProfileId) { id status }
}`;

const PREVIEW = `query($callId: ID!, $scope: GrantScope!, $conditions: [PolicyConditionInput!], $profileId: ID) {
  grantPreview(callId: $callId, scope: $scope, conditions: $conditions, profileId: $profileId) { summary }
}`;

describe('who may grant what', () => {
  test('an approver cannot save an ALWAYS rule on a profile: FORBIDDEN, and the approval is not recorded either', async ({
    services,
    run,
    gql,
    tokens,
  }) => {
    const call = await pendingCall(services, run);
    const rulesBefore = await services.policy.list({});
    const res = await gql(APPROVE, { id: call.id, scope: 'ALWAYS', grantProfileId: 'p1' }, tokens.APPROVER);
    expect(res.errors![0]!.extensions!.code).toBe('FORBIDDEN');
    expect(res.errors![0]!.message).toBe('only an admin may grant on a profile');
    expect((await services.calls.get(call.id))!.status).toBe('AWAITING_APPROVAL');
    expect(await eventTypes(services, { callId: call.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
    ]);
    expect(await services.policy.list({})).toEqual(rulesBefore);
    expect(await services.grants.list({ includeRevoked: true }, admin)).toEqual([]);
  });

  test('an approver cannot preview a profile grant either', async ({ services, run, gql, tokens }) => {
    const call = await pendingCall(services, run);
    const res = await gql(PREVIEW, { callId: call.id, scope: 'ALWAYS', profileId: 'p1' }, tokens.APPROVER);
    expect(res.errors![0]!.extensions!.code).toBe('FORBIDDEN');
  });

  test("grants of a user the token is not bound to: FORBIDDEN; another user's grant cannot be revoked (NOT_FOUND)", async ({
    services,
    gql,
    tokens,
  }) => {
    await allow(services);
    const bobs = await runFor(services, 'bob');
    const call = await pendingCall(services, bobs);
    await services.calls.approve(call.id, { scope: 'RUN' }, admin);
    const [grant] = await services.grants.list({ userId: 'bob' }, admin);

    const listed = await gql('query { grants(userId: "bob") { id } }', {}, tokens.APPROVER);
    expect(listed.errors![0]!.extensions!.code).toBe('FORBIDDEN');
    expect((await gql('query { grants { id } }', {}, tokens.APPROVER)).data!.grants).toEqual([]);
    const revoked = await gql(
      'mutation($id: ID!) { revokeGrant(id: $id) { id } }',
      { id: grant!.id },
      tokens.APPROVER,
    );
    expect(revoked.errors![0]!.extensions!.code).toBe('NOT_FOUND');
    expect((await services.grants.list({ userId: 'bob' }, admin))[0]!.revokedAt).toBeNull();
  });

  test('a viewer may list grants but not revoke them', async ({ services, run, gql, tokens }) => {
    const call = await pendingCall(services, run);
    await services.calls.approve(call.id, { scope: 'RUN' }, approver);
    const [grant] = await services.grants.list({}, admin);
    expect((await gql('query { grants { id } }', {}, tokens.VIEWER)).data!.grants).toEqual([
      { id: grant!.id },
    ]);
    const res = await gql(
      'mutation($id: ID!) { revokeGrant(id: $id) { id } }',
      { id: grant!.id },
      tokens.VIEWER,
    );
    expect(res.errors![0]!.extensions!.code).toBe('FORBIDDEN');
  });

  test('only an admin revokes a profile grant', async ({ services, run }) => {
    const call = await pendingCall(services, run);
    await services.calls.approve(call.id, { scope: 'ALWAYS', grantProfileId: 'p1' }, admin);
    const [grant] = await services.grants.list({}, admin);
    await expect(services.grants.revoke(grant!.id, approver)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await services.grants.revoke(grant!.id, admin)).revokedBy).toBe('admin:root');
  });
});

describe('hostile grant input', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    [
      'a condition that is not a JSON pointer',
      { scope: 'RUN', grantConditions: [{ pointer: 'text', glob: '*' }] },
      'grantConditions.0.pointer: must be a JSON pointer (RFC 6901) into the arguments, such as /path',
    ],
    [
      'a condition with two operators',
      { scope: 'RUN', grantConditions: [{ pointer: '/text', glob: '*', prefix: 'a' }] },
      'grantConditions.0: needs exactly one of glob, prefix, equals, in, maxLength (got glob, prefix)',
    ],
    [
      'more than 16 conditions',
      { scope: 'RUN', grantConditions: Array.from({ length: 17 }, () => ({ pointer: '/a', equals: 1 })) },
      'grantConditions: at most 16 conditions per rule',
    ],
    [
      'an equals operand that is an object',
      { scope: 'RUN', grantConditions: [{ pointer: '/a', equals: { $ne: 1 } }] },
      'grantConditions.0.equals: Invalid input',
    ],
    [
      'conditions on a ONCE approval',
      { scope: 'ONCE', grantConditions: [{ pointer: '/a', equals: 1 }] },
      'grantConditions: only a RUN or ALWAYS grant takes conditions',
    ],
    [
      'a profile for a RUN grant',
      { scope: 'RUN', grantProfileId: 'p1' },
      'grantProfileId: only an ALWAYS grant goes on a profile',
    ],
  ];
  for (const [name, variables, message] of cases) {
    test(`${name}: BAD_USER_INPUT, nothing recorded`, async ({ services, run, gql }) => {
      const call = await pendingCall(services, run);
      const res = await gql(APPROVE, { id: call.id, ...variables });
      expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
      expect(res.errors![0]!.message).toBe(message);
      expect((await services.calls.get(call.id))!.status).toBe('AWAITING_APPROVAL');
      expect(await services.grants.list({ includeRevoked: true }, admin)).toEqual([]);
    });
  }

  test('bad preview conditions are BAD_USER_INPUT under their own names', async ({ services, run, gql }) => {
    const call = await pendingCall(services, run);
    const res = await gql(PREVIEW, { callId: call.id, scope: 'RUN', conditions: [{ pointer: '/a' }] });
    expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(res.errors![0]!.message).toBe(
      'conditions.0: needs exactly one of glob, prefix, equals, in, maxLength (got none)',
    );
  });

  test('ALWAYS on a run without a user and without a profile is BAD_USER_INPUT', async ({
    services,
    gql,
  }) => {
    await allow(services);
    const userless = await services.runs.create({ profileId: 'p1' }, admin);
    const call = await pendingCall(services, userless);
    const res = await gql(APPROVE, { id: call.id, scope: 'ALWAYS' });
    expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect((await services.calls.get(call.id))!.status).toBe('AWAITING_APPROVAL');
  });

  test('a preview of a call the token may not see is NOT_FOUND', async ({ services, gql, tokens }) => {
    await allow(services);
    const bobs = await runFor(services, 'bob');
    const call = await pendingCall(services, bobs);
    const res = await gql(PREVIEW, { callId: call.id, scope: 'RUN' }, tokens.APPROVER);
    expect(res.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });
});
