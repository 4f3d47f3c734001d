import { describe, expect } from 'vitest';
import type { Services } from '../../src/app/services.js';
import type { RunRow } from '../../src/calls/tables.js';
import type { Principal } from '../../src/core/auth.js';
import { runTest } from '../support/fixtures.js';
import { admin, agent, approver, eventTypes, waitFor } from '../support/lifecycle.js';

/** Another person who approves for u1: distinct approvers are distinct token names. */
const person = (name: string, n: number): Principal => ({
  ...approver,
  name,
  tokenId: `00000000-0000-4000-8000-${String(100 + n).padStart(12, '0')}`,
});
const bob = person('bob', 1);
/** An approver token of u1 itself: the run's own user. */
const runsOwnUser = person('u1', 2);

/** `run` may call every test tool; test.echo needs two distinct approvers, never the run's own user. */
const test = runTest.extend<{ run: RunRow }>({
  run: async ({ services, run }, use) => {
    await services.policy.set(
      {
        layer: 'USER',
        scopeId: 'u1',
        toolPattern: 'test.echo',
        effect: 'ASK',
        budget: { approvals: 2, forbidSelfApproval: true },
      },
      admin,
    );
    await use(run);
  },
});

const CALL = `query($id: ID!) {
  toolCall(id: $id) {
    status approvalsRequired selfApprovalForbidden
    approvals { approved decidedBy reason }
    decision { decidedBy }
    approvalRequest { approvalsRequired approvals { decidedBy } }
  }
}`;

const echo = (services: Services, runId: string, text = 'a') =>
  services.calls.request({ runId, name: 'test.echo', arguments: { text } }, agent);

describe('quorum and separation of duties', () => {
  test('the first approval is recorded and the call keeps waiting; the second approves and runs it', async ({
    services,
    run,
    gql,
  }) => {
    const held = await echo(services, run.id);
    expect(held).toMatchObject({
      status: 'AWAITING_APPROVAL',
      approvalsRequired: 2,
      selfApprovalForbidden: true,
    });
    const first = await services.calls.approve(held.id, { reason: 'looks fine' }, approver);
    expect(first).toMatchObject({ status: 'AWAITING_APPROVAL', decision: null });
    const shown = await gql(CALL, { id: held.id });
    expect(shown.data!.toolCall).toEqual({
      status: 'AWAITING_APPROVAL',
      approvalsRequired: 2,
      selfApprovalForbidden: true,
      approvals: [{ approved: true, decidedBy: 'approver:alice', reason: 'looks fine' }],
      decision: null,
      approvalRequest: { approvalsRequired: 2, approvals: [{ decidedBy: 'approver:alice' }] },
    });

    const second = await services.calls.approve(held.id, { reason: 'agreed' }, bob);
    expect(second).toMatchObject({ status: 'APPROVED', decision: { decidedBy: 'approver:bob' } });
    expect(second.approvals.map((a) => a.decidedBy)).toEqual(['approver:alice', 'approver:bob']);
    await waitFor(async () => (await services.calls.get(held.id))?.status === 'COMPLETED');
    const events = await services.journal.read({ callId: held.id, limit: 20 });
    expect(events.map((e) => e.type)).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_approval_added',
      'tool_call_approved',
      'tool_call_started',
      'tool_call_completed',
    ]);
    expect(events[2]).toMatchObject({
      actor: 'approver:alice',
      payload: { approvedBy: 'approver:alice', count: 1, required: 2, reason: 'looks fine' },
    });
    expect(events[3]).toMatchObject({
      actor: 'approver:bob',
      payload: { reason: 'agreed', count: 2, required: 2 },
    });
  });

  test('the same approver twice counts once: CONFLICT, and the call still waits', async ({
    services,
    run,
  }) => {
    const held = await echo(services, run.id);
    await services.calls.approve(held.id, {}, approver);
    await expect(services.calls.approve(held.id, {}, approver)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: 'you already approved this call',
    });
    const now = (await services.calls.get(held.id))!;
    expect(now.status).toBe('AWAITING_APPROVAL');
    expect(now.approvals).toHaveLength(1);
    expect(await eventTypes(services, { callId: held.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_approval_added',
    ]);
  });

  test('an approval after the quorum was reached is CONFLICT', async ({ services, run }) => {
    const held = await echo(services, run.id);
    await services.calls.approve(held.id, {}, approver);
    await services.calls.approve(held.id, {}, bob);
    await expect(services.calls.approve(held.id, {}, admin)).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  test("the run's own user may not approve its calls: FORBIDDEN, nothing recorded", async ({
    services,
    run,
  }) => {
    const held = await echo(services, run.id);
    await expect(services.calls.approve(held.id, {}, runsOwnUser)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: "the run's own user (u1) may not approve its calls",
    });
    expect((await services.calls.get(held.id))!.approvals).toEqual([]);
    expect(await eventTypes(services, { callId: held.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
    ]);
  });

  test('an approval below the quorum with a grant scope is BAD_USER_INPUT and not recorded', async ({
    services,
    run,
  }) => {
    const held = await echo(services, run.id);
    await expect(services.calls.approve(held.id, { scope: 'RUN' }, approver)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
    });
    expect((await services.calls.get(held.id))!.approvals).toEqual([]);
  });

  test('one denial ends it, whatever approvals it had', async ({ services, run }) => {
    const held = await echo(services, run.id);
    await services.calls.approve(held.id, {}, approver);
    const denied = await services.calls.deny(held.id, { reason: 'no' }, bob);
    expect(denied).toMatchObject({
      status: 'DENIED',
      decision: { approved: false, decidedBy: 'approver:bob' },
    });
    expect(denied.approvals.map((a) => a.decidedBy)).toEqual(['approver:alice']);
    await expect(services.calls.approve(held.id, {}, admin)).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  test('a 20-way race with quorum 2 approves and dispatches exactly once', async ({ services, run }) => {
    const held = await echo(services, run.id);
    const approvers = Array.from({ length: 20 }, (_, i) => person(`p${i}`, 10 + i));
    const settled = await Promise.allSettled(approvers.map((p) => services.calls.approve(held.id, {}, p)));
    const won = settled.filter((s) => s.status === 'fulfilled').map((s) => s.value);
    const lost = settled.filter((s) => s.status === 'rejected') as PromiseRejectedResult[];
    expect(won.map((c) => c.status).sort()).toEqual(['APPROVED', 'AWAITING_APPROVAL']);
    expect(lost.map((l) => (l.reason as { code: string }).code)).toEqual(Array(18).fill('CONFLICT'));
    await waitFor(async () => (await services.calls.get(held.id))?.status === 'COMPLETED');
    const types = await eventTypes(services, { callId: held.id });
    expect(types.filter((t) => t === 'tool_call_approval_added')).toHaveLength(1);
    expect(types.filter((t) => t === 'tool_call_approved')).toHaveLength(1);
    expect(types.filter((t) => t === 'tool_call_started')).toHaveLength(1);
  });

  test('the strictest budget wins: a PROFILE rule asking for 3 approvers over the USER rule’s 2', async ({
    services,
    run,
  }) => {
    await services.policy.set(
      { layer: 'PROFILE', scopeId: 'p1', toolPattern: 'test.echo', effect: 'ASK', budget: { approvals: 3 } },
      admin,
    );
    const held = await echo(services, run.id);
    expect(held.approvalsRequired).toBe(3);
  });
});
