import { describe, expect } from 'vitest';
import type { Services } from '../../src/app/services.js';
import type { RunRow } from '../../src/calls/tables.js';
import type { JournalEvent } from '../../src/core/journal-event.js';
import { admin, eventTypes } from '../support/lifecycle.js';
import { pendingCall, person, take, usersTest as test } from '../support/people.js';

const bigResult = async (services: Services, run: RunRow, chars: number) => {
  const call = await services.calls.request({ runId: run.id, name: 'test.big', arguments: { chars } }, admin);
  return call.result!.resourceRefs[0]!;
};

/** A registry change: a journal event that belongs to no run. */
const addDisabledServer = (services: Services) =>
  services.mcpServers.add({ name: 'off', transport: 'STDIO', command: 'true', enabled: false }, 'admin:root');

const PENDING = '{ pendingApprovals { edges { node { id run { userId } } } } }';
const ids = (res: { data?: { pendingApprovals: { edges: Array<{ node: { id: string } }> } } | null }) =>
  res.data!.pendingApprovals.edges.map((e) => e.node.id);

describe('approvers see and decide only the calls of their users', () => {
  test('pendingApprovals of an approver for alice lists only alice’s calls', async ({
    services,
    gql,
    pending,
  }) => {
    const { secret } = await person(services, 'APPROVER', ['alice']);
    expect(ids(await gql(PENDING, {}, secret))).toEqual([pending.alice.id]);
  });

  test('an approver for every user lists every user’s calls', async ({ services, gql, pending }) => {
    const { secret } = await person(services, 'APPROVER', '*');
    expect(ids(await gql(PENDING, {}, secret))).toEqual([pending.alice.id, pending.bob.id, pending.teamA.id]);
  });

  test('an approver bound by the glob team-* lists team-a’s calls and not bob’s', async ({
    services,
    gql,
    pending,
  }) => {
    const { secret } = await person(services, 'APPROVER', ['team-*']);
    expect(ids(await gql(PENDING, {}, secret))).toEqual([pending.teamA.id]);
  });

  test('the approval queue of an approver for alice starts with alice’s pending calls only', async ({
    services,
    pending,
  }) => {
    const { principal } = await person(services, 'APPROVER', ['alice']);
    const queue = services.approvalQueue.rows(principal)[Symbol.asyncIterator]();
    expect((await queue.next()).value).toMatchObject({ id: pending.alice.id, status: 'AWAITING_APPROVAL' });
    // bob's call enters the queue first; the next one this approver gets is alice's.
    await pendingCall(services, (await services.runs.get(pending.bob.runId))!, 'bob-2');
    const second = await pendingCall(services, (await services.runs.get(pending.alice.runId))!, 'alice-2');
    expect((await queue.next()).value).toMatchObject({ id: second.id, status: 'AWAITING_APPROVAL' });
    await queue.return?.();
  });

  test('the approval queue of an approver for alice streams alice’s decided calls, not bob’s', async ({
    services,
    pending,
  }) => {
    const { principal } = await person(services, 'APPROVER', ['alice']);
    const queue = services.approvalQueue.rows(principal)[Symbol.asyncIterator]();
    await queue.next();
    await services.calls.deny(pending.bob.id, { reason: 'no' }, admin);
    await services.calls.approve(pending.alice.id, {}, admin);
    expect((await queue.next()).value).toMatchObject({ id: pending.alice.id });
    await queue.return?.();
  });

  test('an approver for every user gets every user’s pending calls in the queue', async ({
    services,
    pending,
  }) => {
    const { principal } = await person(services, 'APPROVER', '*');
    const queue = services.approvalQueue.rows(principal)[Symbol.asyncIterator]();
    const snapshot = await take(queue, 3);
    await queue.return?.();
    expect(snapshot.map((c) => c.id)).toEqual([pending.alice.id, pending.bob.id, pending.teamA.id]);
  });

  test('approving or denying bob’s call as an approver for alice is NOT_FOUND and records nothing', async ({
    services,
    gql,
    pending,
  }) => {
    const { secret } = await person(services, 'APPROVER', ['alice']);
    const approve = await gql(
      'mutation($id: ID!) { approveToolCall(id: $id) { id } }',
      { id: pending.bob.id },
      secret,
    );
    const deny = await gql(
      'mutation($id: ID!) { denyToolCall(id: $id) { id } }',
      { id: pending.bob.id },
      secret,
    );
    expect(approve.errors!.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
    expect(deny.errors!.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
    expect((await services.calls.get(pending.bob.id))!.status).toBe('AWAITING_APPROVAL');
    expect(await eventTypes(services, { callId: pending.bob.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
    ]);
  });

  test('an approver for alice decides alice’s call', async ({ services, gql, pending }) => {
    const { secret } = await person(services, 'APPROVER', ['alice']);
    const res = await gql(
      'mutation($id: ID!) { denyToolCall(id: $id, reason: "no") { status } }',
      { id: pending.alice.id },
      secret,
    );
    expect(res.data!.denyToolCall).toEqual({ status: 'DENIED' });
  });

  test('an approver for every user decides bob’s call', async ({ services, gql, pending }) => {
    const { secret } = await person(services, 'APPROVER', '*');
    const res = await gql(
      'mutation($id: ID!) { denyToolCall(id: $id, reason: "no") { status } }',
      { id: pending.bob.id },
      secret,
    );
    expect(res.data!.denyToolCall).toEqual({ status: 'DENIED' });
  });

  test('cancelling bob’s run as an approver for alice is NOT_FOUND and the run goes on', async ({
    services,
    gql,
    runs,
  }) => {
    const { secret } = await person(services, 'APPROVER', ['alice']);
    const res = await gql('mutation($id: ID!) { cancelRun(id: $id) { id } }', { id: runs.bob.id }, secret);
    expect(res.errors!.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
    expect((await services.runs.get(runs.bob.id))!.status).toBe('RUNNING');
  });
});

describe('viewers read only the runs of their users', () => {
  test('a viewer for alice reads alice’s run and call, and bob’s are null', async ({
    services,
    gql,
    runs,
    pending,
  }) => {
    const { secret } = await person(services, 'VIEWER', ['alice']);
    const read = (runId: string, callId: string) =>
      gql(
        'query($run: ID!, $call: ID!) { run(id: $run) { userId } toolCall(id: $call) { id } }',
        { run: runId, call: callId },
        secret,
      );
    expect((await read(runs.alice.id, pending.alice.id)).data).toEqual({
      run: { userId: 'alice' },
      toolCall: { id: pending.alice.id },
    });
    expect((await read(runs.bob.id, pending.bob.id)).data).toEqual({ run: null, toolCall: null });
  });

  test('a viewer for alice naming bob’s run or call in the journal gets NOT_FOUND', async ({
    services,
    gql,
    runs,
    pending,
  }) => {
    const { secret } = await person(services, 'VIEWER', ['alice']);
    const byRun = await gql(
      'query($id: ID!) { journal(runId: $id) { edges { node { seq } } } }',
      { id: runs.bob.id },
      secret,
    );
    const byCall = await gql(
      'query($id: ID!) { journal(callId: $id) { edges { node { seq } } } }',
      { id: pending.bob.id },
      secret,
    );
    expect(byRun.errors!.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
    expect(byCall.errors!.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
  });

  test('the whole journal of a viewer for alice holds only the events of alice’s runs', async ({
    services,
    gql,
    pending,
  }) => {
    await addDisabledServer(services);
    const { secret } = await person(services, 'VIEWER', ['alice']);
    const res = await gql('{ journal(first: 1000) { edges { node { type callId } } } }', {}, secret);
    expect(res.data!.journal.edges.map((e: { node: unknown }) => e.node)).toEqual([
      { type: 'RUN_STARTED', callId: null },
      { type: 'TOOL_CALL_REQUESTED', callId: pending.alice.id },
      { type: 'TOOL_CALL_AWAITING_APPROVAL', callId: pending.alice.id },
    ]);
  });

  test('a viewer for every user reads events outside runs too', async ({ services, gql }) => {
    await addDisabledServer(services);
    const { secret } = await person(services, 'VIEWER', '*');
    const res = await gql('{ journal(first: 1000) { edges { node { type runId } } } }', {}, secret);
    expect(res.data!.journal.edges.map((e: { node: unknown }) => e.node)).toEqual([
      { type: 'MCP_SERVER_CHANGED', runId: null },
    ]);
  });

  test('journalEvents of a viewer for alice leaves out events outside runs', async ({ services, runs }) => {
    const { principal } = await person(services, 'VIEWER', ['alice']);
    const reach = await services.journal.authorize(principal, {});
    const events = services.journal.stream({}, null, reach)[Symbol.asyncIterator]();
    const first = events.next();
    await addDisabledServer(services);
    await services.calls.request({ runId: runs.alice.id, name: 'test.noop' }, admin);
    expect((await first).value).toMatchObject({ type: 'tool_call_requested', runId: runs.alice.id });
    await events.return?.();
  });

  test('journalEvents of a viewer for alice replays and streams only the events of alice’s runs', async ({
    services,
    runs,
    pending,
  }) => {
    const { principal } = await person(services, 'VIEWER', ['alice']);
    const reach = await services.journal.authorize(principal, {});
    const events = services.journal.stream({}, 0n, reach)[Symbol.asyncIterator]();
    const replayed = await take(events, 3);
    await services.calls.request({ runId: runs.bob.id, name: 'test.noop' }, admin);
    await services.calls.request({ runId: runs.alice.id, name: 'test.noop' }, admin);
    const streamed = await take(events, 3);
    await events.return?.();
    const of = (list: JournalEvent[]) => list.map((e) => [e.type, e.runId]);
    expect(of(replayed)).toEqual([
      ['run_started', runs.alice.id],
      ['tool_call_requested', pending.alice.runId],
      ['tool_call_awaiting_approval', pending.alice.runId],
    ]);
    expect(of(streamed)).toEqual([
      ['tool_call_requested', runs.alice.id],
      ['tool_call_started', runs.alice.id],
      ['tool_call_completed', runs.alice.id],
    ]);
  });

  test('a viewer for alice reads resources of alice’s runs, and bob’s are null', async ({
    services,
    gql,
    runs,
  }) => {
    const aliceUri = await bigResult(services, runs.alice, 40_000);
    const bobUri = await bigResult(services, runs.bob, 40_001);
    const { secret } = await person(services, 'VIEWER', ['alice']);
    const read = (uri: string) =>
      gql('query($uri: String!) { resource(uri: $uri) { size } }', { uri }, secret);
    expect((await read(aliceUri)).data!.resource).toEqual({ size: 40_000 });
    expect((await read(bobUri)).data!.resource).toBeNull();
  });
});
