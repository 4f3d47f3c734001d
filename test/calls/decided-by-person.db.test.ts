import { describe, expect } from 'vitest';
import type { Services } from '../../src/app/services.js';
import type { RunRow } from '../../src/calls/tables.js';
import type { Principal } from '../../src/core/auth.js';
import { runTest } from '../support/fixtures.js';
import { admin, agent, approver } from '../support/lifecycle.js';

const ISSUER = 'https://idp.example/realms/agents';
const alice = { issuer: ISSUER, subject: 'a1b2c3', displayName: 'Alice Example' };
const bob = { issuer: ISSUER, subject: 'd4e5f6', displayName: 'Bob Example' };

/** An approver signed in with the IdP: the principal the identity feature makes of an IdP token. */
const signedIn = (person: typeof alice, n: number): Principal => ({
  ...approver,
  tokenId: `00000000-0000-4000-8000-${String(200 + n).padStart(12, '0')}`,
  name: person.displayName,
  idp: { ...person, expiresAt: new Date('2099-01-01T00:00:00Z') },
});
const aliceAtIdp = signedIn(alice, 1);
const bobAtIdp = signedIn(bob, 2);

/** `run` may call every test tool; test.echo waits for a person, test.big for two. */
const test = runTest.extend<{ run: RunRow }>({
  run: async ({ services, run }, use) => {
    const ask = { layer: 'USER', scopeId: 'u1', effect: 'ASK' } as const;
    await services.policy.set({ ...ask, toolPattern: 'test.echo' }, admin);
    await services.policy.set({ ...ask, toolPattern: 'test.big', budget: { approvals: 2 } }, admin);
    await use(run);
  },
});

const echo = (services: Services, runId: string) =>
  services.calls.request({ runId, name: 'test.echo', arguments: { text: 'a' } }, agent);

const eventsOf = async (services: Services, callId: string) =>
  (await services.journal.read({ callId, limit: 50 })).map((e) => [e.type, e.payload]);

const DECISION = `query($id: ID!) { toolCall(id: $id) {
  decision { decidedBy person { issuer subject displayName } }
  approvals { person { displayName } }
  edit { editedBy person { subject displayName } }
} }`;

describe('a decision records the person the IdP named', () => {
  test('an approval with an IdP token stores the subject and name with the decision and in the journal', async ({
    services,
    run,
  }) => {
    const held = await echo(services, run.id);
    const approved = await services.calls.approve(held.id, { reason: 'fine' }, aliceAtIdp);
    expect(approved.decision).toMatchObject({ decidedBy: 'approver:Alice Example', person: alice });
    expect(approved.approvals.map((a) => a.person)).toEqual([alice]);
    expect(await eventsOf(services, held.id)).toContainEqual([
      'tool_call_approved',
      { person: alice, reason: 'fine', argumentsHash: held.argumentsHash },
    ]);
  });

  test('a denial with an IdP token names the person in the decision and the journal', async ({
    services,
    run,
  }) => {
    const held = await echo(services, run.id);
    const denied = await services.calls.deny(held.id, { reason: 'no', feedback: 'not now' }, bobAtIdp);
    expect(denied.decision).toMatchObject({ approved: false, person: bob });
    const [, payload] = (await eventsOf(services, held.id)).find(([type]) => type === 'tool_call_denied')!;
    expect(payload).toMatchObject({ person: bob, reason: 'no', feedback: 'not now' });
  });

  test('an identical call refused after a denial carries the person who denied it', async ({
    services,
    run,
  }) => {
    const held = await echo(services, run.id);
    await services.calls.deny(held.id, { reason: 'no' }, bobAtIdp);
    const repeat = await echo(services, run.id);
    expect(repeat).toMatchObject({ status: 'DENIED', decision: { person: bob, repeatOf: held.id } });
    const [, payload] = (await eventsOf(services, repeat.id)).find(([type]) => type === 'tool_call_denied')!;
    expect(payload).toMatchObject({ person: bob, repeatOf: held.id });
  });

  test('each approval of a quorum names its own person', async ({ services, run }) => {
    const held = await services.calls.request(
      { runId: run.id, name: 'test.big', arguments: { chars: 1 } },
      agent,
    );
    await services.calls.approve(held.id, {}, aliceAtIdp);
    const approved = await services.calls.approve(held.id, {}, bobAtIdp);
    expect(approved.approvals.map((a) => a.person)).toEqual([alice, bob]);
    expect(approved.decision?.person).toEqual(bob);
    const added = (await eventsOf(services, held.id)).find(([type]) => type === 'tool_call_approval_added');
    expect(added?.[1]).toMatchObject({ approvedBy: 'approver:Alice Example', person: alice, count: 1 });
  });

  test('an edit names the person on the edit, the replacement’s approval and their events', async ({
    services,
    run,
  }) => {
    const held = await echo(services, run.id);
    const original = await services.calls.approve(held.id, { editedArguments: { text: 'b' } }, aliceAtIdp);
    expect(original.edit?.person).toEqual(alice);
    const replacement = await services.calls.get(original.edit!.replacedBy);
    expect(replacement?.decision?.person).toEqual(alice);
    const edited = (await eventsOf(services, held.id)).find(([type]) => type === 'tool_call_edited');
    expect(edited?.[1]).toMatchObject({ person: alice });
    const approvedEvent = (await eventsOf(services, replacement!.id)).find(
      ([type]) => type === 'tool_call_approved',
    );
    expect(approvedEvent?.[1]).toMatchObject({ person: alice, editOf: held.id });
  });

  test('GraphQL shows the person on the decision, each approval and the edit', async ({
    services,
    run,
    gql,
  }) => {
    const held = await echo(services, run.id);
    const original = await services.calls.approve(held.id, { editedArguments: { text: 'b' } }, aliceAtIdp);
    const shown = await gql(DECISION, { id: held.id });
    expect(shown.data!.toolCall.edit).toEqual({
      editedBy: 'approver:Alice Example',
      person: { subject: 'a1b2c3', displayName: 'Alice Example' },
    });
    const replacement = await gql(DECISION, { id: original.edit!.replacedBy });
    expect(replacement.data!.toolCall).toMatchObject({
      decision: { decidedBy: 'approver:Alice Example', person: alice },
      approvals: [{ person: { displayName: 'Alice Example' } }],
    });
  });

  test('a decision with an API token names no person, and its records are as before', async ({
    services,
    run,
    gql,
  }) => {
    const held = await echo(services, run.id);
    const approved = await services.calls.approve(held.id, { reason: 'fine' }, approver);
    expect(approved.decision).not.toHaveProperty('person');
    expect(await eventsOf(services, held.id)).toContainEqual([
      'tool_call_approved',
      { reason: 'fine', argumentsHash: held.argumentsHash },
    ]);
    const shown = await gql(DECISION, { id: held.id });
    expect(shown.data!.toolCall.decision).toEqual({ decidedBy: 'approver:alice', person: null });
  });
});
