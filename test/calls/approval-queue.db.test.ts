import { describe, expect } from 'vitest';
import type { ApprovalQueueEvent } from '../../src/calls/approval-queue.js';
import type { ApprovalQueueFilter } from '../../src/calls/rules/queue-filter.js';
import type { Principal } from '../../src/core/auth.js';
import { admin, allow } from '../support/lifecycle.js';
import { pendingCall, person, take, usersTest } from '../support/people.js';

/** The users' runs with their pending calls, and a queue subscription opened on demand and closed after the test. */
const test = usersTest.extend<{
  subscribe: (principal: Principal, filter?: ApprovalQueueFilter) => AsyncIterator<ApprovalQueueEvent>;
}>({
  subscribe: async ({ services, pending: _pending }, use) => {
    const open: AsyncIterator<ApprovalQueueEvent>[] = [];
    await use((principal, filter) => {
      const queue = services.approvalQueue.events(principal, filter)[Symbol.asyncIterator]();
      open.push(queue);
      return queue;
    });
    await Promise.all(open.map((q) => q.return?.()));
  },
});

const shape = (e: ApprovalQueueEvent) => ({ kind: e.kind, id: e.call?.id ?? null, pending: e.pending });

const PENDING = `query($filter: ApprovalQueueFilter) {
  pendingApprovals(filter: $filter) { totalCount edges { node { id } } }
}`;

describe('approval queue events', () => {
  test('the snapshot is one ENTERED per pending call, oldest first, then SNAPSHOT_END with the count', async ({
    pending,
    subscribe,
  }) => {
    const events = await take(subscribe(admin), 4);
    expect(events.map(shape)).toEqual([
      { kind: 'ENTERED', id: pending.alice.id, pending: 1 },
      { kind: 'ENTERED', id: pending.bob.id, pending: 2 },
      { kind: 'ENTERED', id: pending.teamA.id, pending: 3 },
      { kind: 'SNAPSHOT_END', id: null, pending: 3 },
    ]);
  });

  test('a call that asks after the snapshot enters, and leaves with its decision', async ({
    services,
    runs,
    pending,
    subscribe,
  }) => {
    const queue = subscribe(admin);
    await take(queue, 4);
    const late = await pendingCall(services, runs.bob, 'late');
    const [entered] = await take(queue, 1);
    await services.calls.deny(pending.alice.id, { reason: 'not now' }, admin);
    const [left] = await take(queue, 1);
    expect([entered!, left!].map(shape)).toEqual([
      { kind: 'ENTERED', id: late.id, pending: 4 },
      { kind: 'LEFT', id: pending.alice.id, pending: 3 },
    ]);
    expect(left!.call).toMatchObject({
      status: 'DENIED',
      decision: { approved: false, decidedBy: 'admin:root', reason: 'not now' },
    });
  });

  test('an approval toward a quorum sends the listed call again as it is now, still pending', async ({
    services,
    runs,
    subscribe,
  }) => {
    await services.policy.set(
      {
        layer: 'USER',
        scopeId: 'bob',
        toolPattern: 'test.dangerous',
        effect: 'ASK',
        budget: { approvals: 2 },
      },
      admin,
    );
    const queue = subscribe(admin);
    await take(queue, 4);
    const twoPeople = await pendingCall(services, runs.bob, 'two-people');
    await take(queue, 1);
    await services.calls.approve(twoPeople.id, {}, admin);
    const [again] = await take(queue, 1);
    expect(shape(again!)).toEqual({ kind: 'ENTERED', id: twoPeople.id, pending: 4 });
    expect(again!.call).toMatchObject({
      status: 'AWAITING_APPROVAL',
      approvalsRequired: 2,
      approvals: [{ approved: true, decidedBy: 'admin:root' }],
    });
  });

  test('a cancelled run’s pending call leaves the queue', async ({ services, runs, pending, subscribe }) => {
    const queue = subscribe(admin);
    await take(queue, 4);
    await services.runs.cancel(runs.teamA.id, admin);
    expect((await take(queue, 1)).map(shape)).toEqual([{ kind: 'LEFT', id: pending.teamA.id, pending: 2 }]);
  });

  test('an approver for alice gets only alice’s calls, in the snapshot and live', async ({
    services,
    runs,
    pending,
    subscribe,
  }) => {
    const { principal } = await person(services, 'APPROVER', ['alice']);
    const queue = subscribe(principal);
    const snapshot = await take(queue, 2);
    await services.calls.approve(pending.bob.id, {}, admin);
    await pendingCall(services, runs.bob, 'bob-2');
    const alice2 = await pendingCall(services, runs.alice, 'alice-2');
    expect([...snapshot, ...(await take(queue, 1))].map(shape)).toEqual([
      { kind: 'ENTERED', id: pending.alice.id, pending: 1 },
      { kind: 'SNAPSHOT_END', id: null, pending: 1 },
      { kind: 'ENTERED', id: alice2.id, pending: 2 },
    ]);
  });

  test('a filter never widens a token’s reach: an approver for alice asking for bob gets an empty queue', async ({
    services,
    subscribe,
  }) => {
    const { principal } = await person(services, 'APPROVER', ['alice']);
    expect((await take(subscribe(principal, { userId: 'bob' }), 1)).map(shape)).toEqual([
      { kind: 'SNAPSHOT_END', id: null, pending: 0 },
    ]);
  });

  test('a user filter keeps that user’s calls, in the snapshot and live', async ({
    services,
    runs,
    pending,
    subscribe,
  }) => {
    const queue = subscribe(admin, { userId: 'team-a' });
    const snapshot = await take(queue, 2);
    await pendingCall(services, runs.alice, 'alice-2');
    const teamA2 = await pendingCall(services, runs.teamA, 'team-a-2');
    expect([...snapshot, ...(await take(queue, 1))].map(shape)).toEqual([
      { kind: 'ENTERED', id: pending.teamA.id, pending: 1 },
      { kind: 'SNAPSHOT_END', id: null, pending: 1 },
      { kind: 'ENTERED', id: teamA2.id, pending: 2 },
    ]);
  });

  test('a run filter keeps that run’s calls', async ({ runs, pending, subscribe }) => {
    expect((await take(subscribe(admin, { runId: runs.bob.id }), 2)).map(shape)).toEqual([
      { kind: 'ENTERED', id: pending.bob.id, pending: 1 },
      { kind: 'SNAPSHOT_END', id: null, pending: 1 },
    ]);
  });

  test('a tool pattern keeps the calls of matching tools, in the snapshot and live', async ({
    services,
    runs,
    subscribe,
  }) => {
    await allow(services, 'test.echo', { effect: 'ASK', reason: 'echo asks' });
    const echo = await services.calls.request(
      { runId: runs.alice.id, name: 'test.echo', arguments: { text: 'hi' } },
      admin,
    );
    const queue = subscribe(admin, { toolPattern: 'test.e*' });
    const snapshot = await take(queue, 2);
    await pendingCall(services, runs.bob, 'not-echo');
    const echo2 = await services.calls.request(
      { runId: runs.bob.id, name: 'test.echo', arguments: { text: 'again' } },
      admin,
    );
    expect([...snapshot, ...(await take(queue, 1))].map(shape)).toEqual([
      { kind: 'ENTERED', id: echo.id, pending: 1 },
      { kind: 'SNAPSHOT_END', id: null, pending: 1 },
      { kind: 'ENTERED', id: echo2.id, pending: 2 },
    ]);
  });

  test('a source filter keeps the calls of tools from that source', async ({ pending, subscribe }) => {
    expect((await take(subscribe(admin, { source: 'EXTENSION' }), 1)).map(shape)).toEqual([
      { kind: 'SNAPSHOT_END', id: null, pending: 0 },
    ]);
    expect((await take(subscribe(admin, { source: 'BUILT_IN' }), 4)).map((e) => e.call?.id ?? null)).toEqual([
      pending.alice.id,
      pending.bob.id,
      pending.teamA.id,
      null,
    ]);
  });
});

describe('pendingApprovals with a filter', () => {
  test('totalCount counts every call the filter keeps, beyond the page', async ({ gql, pending }) => {
    const res = await gql(
      'query { pendingApprovals(first: 1, filter: { toolPattern: "test.*" }) { totalCount edges { node { id } } } }',
    );
    expect(res.data).toEqual({
      pendingApprovals: { totalCount: 3, edges: [{ node: { id: pending.alice.id } }] },
    });
  });

  test('an approver for alice counts only alice’s calls', async ({ services, gql, pending }) => {
    const { secret } = await person(services, 'APPROVER', ['alice']);
    expect((await gql(PENDING, {}, secret)).data).toEqual({
      pendingApprovals: { totalCount: 1, edges: [{ node: { id: pending.alice.id } }] },
    });
  });

  test('a user filter lists that user’s calls', async ({ gql, pending }) => {
    expect((await gql(PENDING, { filter: { userId: 'bob' } })).data).toEqual({
      pendingApprovals: { totalCount: 1, edges: [{ node: { id: pending.bob.id } }] },
    });
  });

  test.for([
    ['a run id that is no UUID', { runId: 'run-1' }],
    ['a user pattern where an id is wanted', { userId: 'team-*' }],
    ['a tool pattern with a slash', { toolPattern: 'workspace/*' }],
  ] as const)('%s is BAD_USER_INPUT', async ([, filter], { gql }) => {
    const res = await gql(PENDING, { filter });
    expect(res.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    expect(res.data?.pendingApprovals ?? null).toBeNull();
  });
});
