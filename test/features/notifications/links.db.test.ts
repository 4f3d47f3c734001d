import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import type { RunRow } from '../../../src/calls/tables.js';
import { admin, approver } from '../../support/lifecycle.js';
import { pendingEcho, startNotifyingServices, notifyTest as test } from '../../support/notifications.js';
import type { WebhookReceiver } from '../../support/webhook-receiver.js';

const APPROVE = `mutation($id: ID!, $link: String) { approveToolCall(id: $id, link: $link) { id status decision { decidedBy } } }`;
const DENY = `mutation($id: ID!, $link: String) { denyToolCall(id: $id, link: $link) { id status } }`;
const LINK = `query($token: String!) { approvalLink(token: $token) { expiresAt usedAt call { id status } } }`;

/** A pending call and the one-time token its notification carried. */
async function notifiedCall(services: Services, run: RunRow, receiver: WebhookReceiver) {
  await services.notifications.targets.create(
    {
      name: 'ops',
      kind: 'WEBHOOK',
      url: receiver.url,
      events: ['APPROVAL_REQUESTED'],
      consoleUrl: 'https://console.example',
    },
    'admin:test',
  );
  const call = await pendingEcho(services, run);
  await services.notifier.sweep();
  const url = new URL(receiver.received.at(-1)!.json.link.url.replace('/#/', '/'));
  return { call, token: url.searchParams.get('link')! };
}

const decisionEvents = async (services: Services, callId: string) =>
  (await services.journal.read({ callId, limit: 100 }))
    .map((e) => e.type)
    .filter((type) => type === 'tool_call_approved' || type === 'tool_call_denied');

describe('one-time signed links', () => {
  test('a signed-in approver opens the link: the call, when the link expires, and that it is unused', async ({
    services,
    run,
    receiver,
    gql,
    tokens,
  }) => {
    const { call, token } = await notifiedCall(services, run, receiver);
    const res = await gql(LINK, { token }, tokens.APPROVER);
    expect(res.errors).toBeUndefined();
    expect(res.data!.approvalLink).toEqual({
      expiresAt: expect.any(String),
      usedAt: null,
      call: { id: call.id, status: 'AWAITING_APPROVAL' },
    });
  });

  test('a decision through the link is accepted once and refused after', async ({
    services,
    run,
    receiver,
    gql,
    tokens,
  }) => {
    const { call, token } = await notifiedCall(services, run, receiver);
    const first = await gql(APPROVE, { id: call.id, link: token }, tokens.APPROVER);
    expect(first.errors).toBeUndefined();
    expect(first.data!.approveToolCall).toEqual({
      id: call.id,
      status: 'APPROVED',
      decision: { decidedBy: 'approver:test-approver' },
    });
    const again = await gql(DENY, { id: call.id, link: token }, tokens.APPROVER);
    expect(again.errors![0]!.extensions!.code).toBe('CONFLICT');
    expect((await gql(LINK, { token }, tokens.APPROVER)).data!.approvalLink.usedAt).toEqual(
      expect.any(String),
    );
    expect(await decisionEvents(services, call.id)).toEqual(['tool_call_approved']);
  });

  test('with a quorum of two, the second approver cannot reuse the link the first one used', async ({
    services,
    run,
    receiver,
    gql,
    tokens,
  }) => {
    await services.policy.set(
      { layer: 'USER', scopeId: 'u1', toolPattern: 'test.echo', effect: 'ASK', budget: { approvals: 2 } },
      admin,
    );
    const { call, token } = await notifiedCall(services, run, receiver);
    const first = await gql(APPROVE, { id: call.id, link: token }, tokens.APPROVER);
    expect(first.data!.approveToolCall.status).toBe('AWAITING_APPROVAL');
    const second = await gql(APPROVE, { id: call.id, link: token }, tokens.ADMIN);
    expect(second.errors![0]!).toMatchObject({
      message: 'this approval link was already used',
      extensions: { code: 'CONFLICT' },
    });
    const after = (await services.calls.get(call.id))!;
    expect([after.status, after.approvals.map((a) => a.decidedBy)]).toEqual([
      'AWAITING_APPROVAL',
      ['approver:test-approver'],
    ]);
  });

  test('approving with edits through the link uses it up like any decision', async ({
    services,
    run,
    receiver,
    gql,
    tokens,
  }) => {
    const { call, token } = await notifiedCall(services, run, receiver);
    const EDIT = `mutation($id: ID!, $link: String, $args: JSON) {
      approveToolCall(id: $id, link: $link, editedArguments: $args) { status }
    }`;
    const edited = await gql(EDIT, { id: call.id, link: token, args: { text: 'edited' } }, tokens.APPROVER);
    expect(edited.errors).toBeUndefined();
    expect(edited.data!.approveToolCall.status).toBe('EDITED');
    expect((await gql(LINK, { token }, tokens.APPROVER)).data!.approvalLink.usedAt).toEqual(
      expect.any(String),
    );
  });

  test('the first decision from any channel wins: after a console decision the link decides nothing and stays unused', async ({
    services,
    run,
    receiver,
    gql,
    tokens,
  }) => {
    const { call, token } = await notifiedCall(services, run, receiver);
    await services.calls.deny(call.id, { reason: 'from the console' }, approver);
    const res = await gql(APPROVE, { id: call.id, link: token }, tokens.APPROVER);
    expect(res.errors![0]!.extensions).toMatchObject({ code: 'CONFLICT', status: 'DENIED' });
    expect((await gql(LINK, { token }, tokens.APPROVER)).data!.approvalLink).toMatchObject({
      usedAt: null,
      call: { status: 'DENIED' },
    });
  });

  test('a tampered link is refused and decides nothing', async ({ services, run, receiver, gql, tokens }) => {
    const { call, token } = await notifiedCall(services, run, receiver);
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    for (const forged of [
      `${token.slice(0, -1)}${last}`,
      `${crypto.randomUUID()}.${token.split('.')[1]}`,
      'nonsense',
    ]) {
      const res = await gql(APPROVE, { id: call.id, link: forged }, tokens.APPROVER);
      expect(res.errors![0]!).toMatchObject({
        message: 'this approval link is not valid',
        extensions: { code: 'BAD_USER_INPUT', field: 'link' },
      });
      expect((await gql(LINK, { token: forged }, tokens.APPROVER)).errors![0]!.extensions!.code).toBe(
        'BAD_USER_INPUT',
      );
    }
    expect((await services.calls.get(call.id))!.status).toBe('AWAITING_APPROVAL');
    expect(await decisionEvents(services, call.id)).toEqual([]);
  });

  test('an expired link is CONFLICT and decides nothing', async ({
    services,
    run,
    receiver,
    gql,
    tokens,
    clock,
  }) => {
    const { call } = await notifiedCall(services, run, receiver);
    const expired = await services.notifications.links.issue(
      services.database.db,
      call.id,
      null,
      new Date(clock.now().getTime() - 1),
    );
    const res = await gql(APPROVE, { id: call.id, link: expired.token }, tokens.APPROVER);
    expect(res.errors![0]!).toMatchObject({
      message: 'this approval link expired',
      extensions: { code: 'CONFLICT', field: 'link', expiresAt: expired.expiresAt.toISOString() },
    });
    expect((await services.calls.get(call.id))!.status).toBe('AWAITING_APPROVAL');
  });

  test('a link to one call decides no other', async ({ services, run, receiver, gql, tokens }) => {
    const { token } = await notifiedCall(services, run, receiver);
    const other = await pendingEcho(services, run, 'other');
    const res = await gql(APPROVE, { id: other.id, link: token }, tokens.APPROVER);
    expect(res.errors![0]!).toMatchObject({
      message: 'this approval link is for another call',
      extensions: { code: 'BAD_USER_INPUT', field: 'link' },
    });
    expect((await services.calls.get(other.id))!.status).toBe('AWAITING_APPROVAL');
  });

  test('a link opens nothing for an approver who may not see the call', async ({
    services,
    run,
    receiver,
    gql,
  }) => {
    const { call, token } = await notifiedCall(services, run, receiver);
    const { secret } = await services.tokens.create({
      name: 'bobs-approver',
      role: 'APPROVER',
      users: ['bob'],
    });
    expect((await gql(LINK, { token }, secret)).data!.approvalLink).toBeNull();
    const res = await gql(APPROVE, { id: call.id, link: token }, secret);
    expect(res.errors![0]!.extensions!.code).toBe('NOT_FOUND');
    expect((await gql(LINK, { token })).data!.approvalLink.usedAt).toBeNull();
  });

  test('the link key is made once and kept: another process verifies the same token', async ({
    services,
    run,
    receiver,
    testDb,
    clock,
  }) => {
    const { call, token } = await notifiedCall(services, run, receiver);
    const other = await startNotifyingServices(testDb.database, clock);
    try {
      expect((await other.notifications.approvalLink(token, approver))!.call.id).toBe(call.id);
    } finally {
      await other.stop();
    }
  });
});
