import { describe, expect } from 'vitest';
import type { Services } from '../../src/app/services.js';
import type { RunRow } from '../../src/calls/tables.js';
import { runTest } from '../support/fixtures.js';
import { admin, agent, approver, eventTypes, waitFor } from '../support/lifecycle.js';
import { take } from '../support/people.js';

/** `run` may call every test tool; test.echo needs a person's approval and never echoes under secret/. */
const test = runTest.extend<{ run: RunRow }>({
  run: async ({ services, run }, use) => {
    await services.policy.set(
      { layer: 'USER', scopeId: 'u1', toolPattern: 'test.echo', effect: 'ASK' },
      admin,
    );
    await services.policy.set(
      {
        layer: 'USER',
        scopeId: 'u1',
        toolPattern: 'test.echo',
        effect: 'DENY',
        reason: 'no secrets',
        conditions: [{ pointer: '/text', prefix: 'secret/' }],
      },
      admin,
    );
    await use(run);
  },
});

const APPROVE = `mutation($id: ID!, $editedArguments: JSON, $reason: String, $argumentsHash: String) {
  approveToolCall(id: $id, editedArguments: $editedArguments, reason: $reason, argumentsHash: $argumentsHash) {
    id status arguments
    edit { editedBy reason diff }
    replacedBy { id status arguments replaces { id } decision { approved decidedBy } approvals { decidedBy } }
  }
}`;

const echo = (services: Services, runId: string, text: string) =>
  services.calls.request({ runId, name: 'test.echo', arguments: { text } }, agent);

describe('approve with edits', () => {
  test('the edited call runs with the new arguments; the original ends EDITED with the JSON Patch', async ({
    services,
    run,
    gql,
    tokens,
  }) => {
    const held = await echo(services, run.id, 'drafts/a.md');
    const res = await gql(
      APPROVE,
      {
        id: held.id,
        editedArguments: { text: 'drafts/b.md' },
        reason: 'the other file',
        argumentsHash: held.argumentsHash,
      },
      tokens.APPROVER,
    );
    expect(res.errors).toBeUndefined();
    const edited = res.data!.approveToolCall;
    expect(edited).toMatchObject({
      id: held.id,
      status: 'EDITED',
      arguments: { text: 'drafts/a.md' },
      edit: {
        editedBy: 'approver:test-approver',
        reason: 'the other file',
        diff: [{ op: 'replace', path: '/text', value: 'drafts/b.md' }],
      },
      replacedBy: {
        arguments: { text: 'drafts/b.md' },
        replaces: { id: held.id },
        decision: { approved: true, decidedBy: 'approver:test-approver' },
        approvals: [{ decidedBy: 'approver:test-approver' }],
      },
    });
    const ran = await waitFor(async () => {
      const call = await services.calls.get(edited.replacedBy.id);
      return call?.status === 'COMPLETED' && call;
    });
    expect(ran.result!.content).toEqual([{ type: 'text', text: 'drafts/b.md' }]);
  });

  test('both calls are journaled in order: edited, then the replacement requested and approved', async ({
    services,
    run,
  }) => {
    const held = await echo(services, run.id, 'drafts/a.md');
    const original = await services.calls.approve(
      held.id,
      { editedArguments: { text: 'drafts/b.md' }, reason: 'fix' },
      approver,
    );
    const replacedBy = original.edit!.replacedBy;
    await waitFor(async () => (await services.calls.get(replacedBy))?.status === 'COMPLETED');
    const events = (await services.journal.read({ runId: run.id, limit: 100 })).filter((e) => e.callId);
    expect(events.map((e) => [e.type, e.callId === held.id ? 'original' : 'replacement'])).toEqual([
      ['tool_call_requested', 'original'],
      ['tool_call_awaiting_approval', 'original'],
      ['tool_call_edited', 'original'],
      ['tool_call_requested', 'replacement'],
      ['tool_call_approved', 'replacement'],
      ['tool_call_started', 'replacement'],
      ['tool_call_completed', 'replacement'],
    ]);
    expect(events[2]).toMatchObject({
      actor: 'approver:alice',
      payload: { replacedBy, reason: 'fix', diff: [{ op: 'replace', path: '/text', value: 'drafts/b.md' }] },
    });
    expect(events[3]!.payload).toMatchObject({ name: 'test.echo', replaces: held.id, providerCallId: null });
    expect(events[4]!.payload).toMatchObject({ reason: 'fix', editOf: held.id });
  });

  test('an edit policy would deny is refused with the reason, and nothing is recorded', async ({
    services,
    run,
    gql,
    tokens,
  }) => {
    const held = await echo(services, run.id, 'drafts/a.md');
    const res = await gql(
      APPROVE,
      { id: held.id, editedArguments: { text: 'secret/keys.txt' } },
      tokens.APPROVER,
    );
    expect(res.data?.approveToolCall ?? null).toBeNull();
    const error = res.errors![0]!;
    expect(error.extensions!.code).toBe('BAD_USER_INPUT');
    expect(error.extensions).toMatchObject({ field: 'editedArguments', refusal: 'tool_not_available' });
    expect(error.extensions!.policyReason).toMatch(/no secrets/);
    expect(error.message).toBe(`the edited call would not be allowed: ${error.extensions!.policyReason}`);
    expect((await services.calls.get(held.id))!.status).toBe('AWAITING_APPROVAL');
    expect(await eventTypes(services, { runId: run.id })).toEqual([
      'run_started',
      'tool_call_requested',
      'tool_call_awaiting_approval',
    ]);
  });

  test('edited arguments that fail the tool schema are BAD_USER_INPUT naming the issue', async ({
    services,
    run,
    gql,
    tokens,
  }) => {
    const held = await echo(services, run.id, 'drafts/a.md');
    const res = await gql(APPROVE, { id: held.id, editedArguments: { text: 42 } }, tokens.APPROVER);
    expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(res.errors![0]!.message).toMatch(/^editedArguments: \/text /);
    expect((await services.calls.get(held.id))!.status).toBe('AWAITING_APPROVAL');
  });

  test('the same arguments as the call’s are a plain approval', async ({ services, run }) => {
    const held = await echo(services, run.id, 'drafts/a.md');
    const approved = await services.calls.approve(
      held.id,
      { editedArguments: { text: 'drafts/a.md' } },
      approver,
    );
    expect(approved).toMatchObject({ id: held.id, status: 'APPROVED', edit: null });
  });

  test('the edited call leaves the approval queue', async ({ services, run }) => {
    const held = await echo(services, run.id, 'drafts/a.md');
    const queue = services.approvalQueue.events(approver, null)[Symbol.asyncIterator]();
    try {
      expect((await take(queue, 2)).map((e) => [e.kind, e.call?.id ?? null])).toEqual([
        ['ENTERED', held.id],
        ['SNAPSHOT_END', null],
      ]);
      await services.calls.approve(held.id, { editedArguments: { text: 'drafts/b.md' } }, approver);
      const [left] = await take(queue, 1);
      expect([left!.kind, left!.call!.id, left!.call!.status, left!.pending]).toEqual([
        'LEFT',
        held.id,
        'EDITED',
        0,
      ]);
    } finally {
      await queue.return?.();
    }
  });

  test('a call already decided cannot be edited: CONFLICT', async ({ services, run }) => {
    const held = await echo(services, run.id, 'drafts/a.md');
    await services.calls.deny(held.id, { reason: 'no' }, admin);
    await expect(
      services.calls.approve(held.id, { editedArguments: { text: 'drafts/b.md' } }, approver),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
  });
});
