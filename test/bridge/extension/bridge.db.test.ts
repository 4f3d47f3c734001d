import { randomUUID } from 'node:crypto';
import { describe, expect, vi } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { tools } from '../../../src/calls/tables.js';
import { normalizeAnnotations, normalizeBudget } from '../../../src/core/tool-spec.js';
import { extensionConnections } from '../../../src/db/schema.js';
import { ExtensionClient, type Node, startNode } from '../../support/extension.js';
import { dbTest } from '../../support/fixtures.js';
import { agent, allow, approver, eventTypes, newRun, waitFor } from '../../support/lifecycle.js';

const REGISTER = `mutation($input: RegisterExtensionToolsInput!) {
  registerExtensionTools(input: $input) { name title displayName source enabled approvalMessageTemplate }
}`;
const ANSWER = `mutation($callId: ID!, $result: ExtensionResultInput!) {
  answerExtensionInvocation(callId: $callId, result: $result) { callId status }
}`;

const roll = {
  name: 'roll',
  displayName: 'Roll a die',
  description: 'Rolls one die with the given number of sides.',
  inputSchema: {
    type: 'object',
    properties: { sides: { type: 'integer', minimum: 2 } },
    required: ['sides'],
  },
  outputSchema: { type: 'object', properties: { value: { type: 'integer' } }, required: ['value'] },
  annotations: { readOnly: true },
  approvalMessageTemplate: 'Roll a d{{sides}} for {{player.name}}',
};
const echo = {
  name: 'echo',
  description: 'Says the text back.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
};

type Response = Awaited<ReturnType<Node['gql']>>;
const extensionsOf = (res: Response) => res.errors?.[0]?.extensions ?? {};
const codeOf = (res: Response) => extensionsOf(res).code;
const messageOf = (res: Response) => res.errors?.[0]?.message;

interface Setup {
  node: Node;
  services: Services;
  dice: string;
  cards: string;
}

async function setup(testDb: Parameters<typeof startNode>[0]): Promise<Setup> {
  const node = await startNode(testDb);
  const token = async (name: string, extensionId: string) =>
    (await node.services.tokens.create({ name, role: 'EXTENSION', extensionId })).secret;
  const dice = await token('dice-extension', 'dice');
  const cards = await token('cards-extension', 'cards');
  const registered = await node.gql(dice, REGISTER, { input: { tools: [roll, echo] } });
  expect(registered.errors).toBeUndefined();
  return { node, services: node.services, dice, cards };
}

const test = dbTest.extend<{ bridge: Setup }>({
  bridge: async ({ testDb }, use) => use(await setup(testDb)),
});

/** How most dispatch tests begin: dice connected and allowed, a roll requested and handed to it. */
async function rollHandedOver({ node, services, dice }: Setup, rule: Record<string, unknown> = {}) {
  const client = await connect(node, dice, 'dice');
  await allowDice(services, rule);
  const run = await newRun(services);
  const pending = services.calls.request(
    { runId: run.id, name: 'ext.dice.roll', arguments: { sides: 6 } },
    agent,
  );
  const invocation = await client.next();
  return { client, run, pending, invocation };
}

async function connect(node: Node, token: string, extensionId: string): Promise<ExtensionClient> {
  const client = new ExtensionClient(node.url, token);
  await waitFor(() => node.services.extensions.store.connected(extensionId));
  return client;
}

async function allowDice(services: Services, extra: Record<string, unknown> = {}) {
  await allow(services, 'ext.dice.*', { skipApproval: true, ...extra });
}

describe('extension tool registration', () => {
  test('tools are namespaced under the extension, marked EXTENSION, and listed only to their owner', async ({
    bridge,
  }) => {
    const { node, dice, cards } = bridge;
    const mine = await node.gql(dice, '{ extensionTools { name title displayName source enabled } }');
    expect(mine.data.extensionTools).toEqual([
      { name: 'ext.dice.echo', title: 'echo', displayName: null, source: 'EXTENSION', enabled: true },
      {
        name: 'ext.dice.roll',
        title: 'Roll a die',
        displayName: 'Roll a die',
        source: 'EXTENSION',
        enabled: true,
      },
    ]);
    const theirs = await node.gql(cards, '{ extensionTools { name } }');
    expect(theirs.data.extensionTools).toEqual([]);
    const registry = await node.gql(cards, '{ tools { edges { node { name } } } }');
    expect(codeOf(registry)).toBe('FORBIDDEN');
  });

  test('a schema with a backtracking-only pattern, or over 64 KiB, is refused naming the field', async ({
    bridge,
  }) => {
    const { node, services, cards } = bridge;
    const lookahead = { type: 'object', properties: { s: { type: 'string', pattern: '^(?=.*x).*$' } } };
    const huge = { type: 'object', description: 'x'.repeat(70_000) };
    for (const [field, tool] of [
      ['inputSchema', { ...echo, name: 'lookahead', inputSchema: lookahead }],
      ['outputSchema', { ...echo, name: 'huge', outputSchema: huge }],
    ] as const) {
      const res = await node.gql(cards, REGISTER, { input: { tools: [tool] } });
      expect(codeOf(res)).toBe('BAD_USER_INPUT');
      expect(res.errors![0]!.message).toContain(`input.tools.0.${field}:`);
    }
    expect(await services.registry.get('ext.cards.lookahead')).toBeNull();
    expect(await services.registry.get('ext.cards.huge')).toBeNull();
  });

  test('a name with a dot is refused, so no extension can reach another namespace or a built-in', async ({
    bridge,
  }) => {
    const { node, services, cards } = bridge;
    for (const name of ['ext.dice.roll', 'workspace.read_file', '../roll']) {
      const res = await node.gql(cards, REGISTER, { input: { tools: [{ ...echo, name }] } });
      expect(codeOf(res)).toBe('BAD_USER_INPUT');
    }
    const builtIn = await services.registry.get('workspace.read_file');
    expect(builtIn).toMatchObject({ source: 'BUILT_IN', title: 'Read a workspace file' });
    expect(await services.registry.get('ext.dice.roll')).toMatchObject({ title: 'Roll a die' });
    const sameLocalName = await node.gql(cards, REGISTER, {
      input: { tools: [{ ...echo, name: 'read_file' }] },
    });
    expect(sameLocalName.data.registerExtensionTools.map((t: { name: string }) => t.name)).toEqual([
      'ext.cards.read_file',
    ]);
  });

  test('a name in its namespace that the extension does not own (registered by an admin) is a CONFLICT', async ({
    bridge,
  }) => {
    const { node, services, dice } = bridge;
    // A row from before registration was checked (registerTool now refuses an MCP tool named so).
    await services.database.db.insert(tools).values({
      name: 'ext.dice.admin_made',
      title: 'Admin',
      description: 'd',
      inputSchema: { type: 'object' },
      outputSchema: null,
      annotations: normalizeAnnotations(null),
      visibility: 'MODEL',
      permission: 'ALWAYS_ALLOW',
      budget: normalizeBudget(null),
      source: 'MCP',
      enabled: true,
      owner: null,
    });
    const res = await node.gql(dice, REGISTER, { input: { tools: [{ ...echo, name: 'admin_made' }] } });
    expect(codeOf(res)).toBe('CONFLICT');
    expect(await services.registry.get('ext.dice.admin_made')).toMatchObject({
      source: 'MCP',
      title: 'Admin',
    });
  });

  test("an extension cannot unregister another's tool; unregistering its own disables it and keeps its calls", async ({
    bridge,
  }) => {
    const { node, services, dice, cards } = bridge;
    const foreign = await node.gql(cards, 'mutation { unregisterExtensionTools(names: ["roll"]) { name } }');
    expect(codeOf(foreign)).toBe('NOT_FOUND');
    expect((await services.registry.get('ext.dice.roll'))!.enabled).toBe(true);

    await allowDice(services);
    const run = await newRun(services);
    const before = await services.calls.request(
      { runId: run.id, name: 'ext.dice.echo', arguments: {} },
      agent,
    );
    const res = await node.gql(
      dice,
      'mutation { unregisterExtensionTools(names: ["echo"]) { name enabled } }',
    );
    expect(res.data.unregisterExtensionTools).toEqual([{ name: 'ext.dice.echo', enabled: false }]);
    const after = await services.calls.request(
      { runId: run.id, name: 'ext.dice.echo', arguments: {} },
      agent,
    );
    expect(after.error).toMatchObject({ kind: 'POLICY_DENIED', code: 'tool_not_available' });
    expect(after.policyReason).toBe('tool is disabled');
    expect(await services.calls.get(before.id)).toMatchObject({ name: 'ext.dice.echo' });
  });

  test('replace unregisters the tools left out; registering again brings one back', async ({ bridge }) => {
    const { node, services, dice } = bridge;
    await node.gql(dice, REGISTER, { input: { tools: [roll], replace: true } });
    expect((await services.registry.get('ext.dice.echo'))!.enabled).toBe(false);
    expect((await services.registry.get('ext.dice.roll'))!.enabled).toBe(true);
    await node.gql(dice, REGISTER, { input: { tools: [echo] } });
    expect((await services.registry.get('ext.dice.echo'))!.enabled).toBe(true);
  });

  test('re-registering keeps how an admin governs the tool', async ({ bridge }) => {
    const { node, services, dice } = bridge;
    await services.registry.update('ext.dice.roll', {
      permission: 'APPROVAL_REQUIRED',
      budget: { timeoutMs: 5000 },
    });
    await node.gql(dice, REGISTER, { input: { tools: [{ ...roll, description: 'Rolls better.' }] } });
    expect(await services.registry.get('ext.dice.roll')).toMatchObject({
      description: 'Rolls better.',
      permission: 'APPROVAL_REQUIRED',
      budget: { timeoutMs: 5000 },
    });
  });
});

describe('extension tool policy', () => {
  test('extension tools are invisible until a policy allows them, then need approval by default', async ({
    bridge,
  }) => {
    const { node, services, dice } = bridge;
    const view = async () =>
      (await services.policy.effectiveTools({ profileId: 'p1' })).find(
        (t) => t.tool.name === 'ext.dice.roll',
      )!;
    expect(await view()).toMatchObject({
      visible: false,
      callable: false,
      reason: 'no rule allows this tool (tools are invisible by default)',
    });
    await allow(services, 'ext.dice.*');
    // Allowed, but not offered while no client of the extension is connected anywhere.
    const offline = await view();
    expect(offline).toMatchObject({ visible: false, callable: false });
    expect(offline.reason).toMatch(
      /^cannot run now: its extension dice is not connected to any server process/,
    );
    await connect(node, dice, 'dice');
    const allowed = await view();
    expect(allowed).toMatchObject({ visible: true, callable: true, approvalRequired: true });
    expect(allowed.reason).toContain('approval required: EXTENSION tools need approval by default');
  });

  test('approvers see the display name and the filled approval message next to the real arguments', async ({
    bridge,
  }) => {
    const { node, services, dice } = bridge;
    const client = await connect(node, dice, 'dice');
    await allow(services, 'ext.dice.*');
    const run = await newRun(services);
    const call = await services.calls.request(
      { runId: run.id, name: 'ext.dice.roll', arguments: { sides: 20, player: { name: 'Mia' } } },
      agent,
    );
    expect(call.status).toBe('AWAITING_APPROVAL');
    const approverToken = (
      await services.tokens.create({ name: 'alice', role: 'APPROVER', users: ['alice', 'u1'] })
    ).secret;
    const res = await node.gql(
      approverToken,
      `{ toolCall(id: "${call.id}") { approvalRequest { title displayName message argumentsSummary source } } }`,
    );
    expect(res.data.toolCall.approvalRequest).toEqual({
      title: 'Roll a die',
      displayName: 'Roll a die',
      message: 'Roll a d20 for Mia',
      argumentsSummary: '{"player":{"name":"Mia"},"sides":20}',
      source: 'EXTENSION',
    });
    await services.calls.approve(call.id, {}, approver);
    const invocation = await client.next();
    await node.gql(dice, ANSWER, { callId: invocation.callId, result: { structured: { value: 17 } } });
    const done = await waitFor(async () => {
      const now = await services.calls.get(call.id);
      return now?.status === 'COMPLETED' && now;
    });
    expect(done.result!.structured).toEqual({ value: 17 });
    expect(await eventTypes(services, { callId: call.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_approved',
      'tool_call_started',
      'tool_call_completed',
    ]);
  });
});

describe('extension tool dispatch over the bridge', () => {
  test('the extension receives the invocation on its subscription and its answer completes the call', async ({
    bridge,
  }) => {
    const { services } = bridge;
    const { client, pending, invocation } = await rollHandedOver(bridge);
    expect(invocation).toMatchObject({
      toolName: 'ext.dice.roll',
      name: 'roll',
      arguments: { sides: 6 },
      status: 'PENDING',
    });
    expect(Date.parse(invocation.deadline)).toBeGreaterThan(Date.now());
    const answered = await client.request(ANSWER, {
      callId: invocation.callId,
      result: { content: [{ type: 'text', text: 'You rolled 4.' }], structured: { value: 4 } },
    });
    expect(answered.data).toEqual({
      answerExtensionInvocation: { callId: invocation.callId, status: 'ANSWERED' },
    });
    const call = await pending;
    expect(call.id).toBe(invocation.callId);
    expect(call.status).toBe('COMPLETED');
    expect(call.result).toMatchObject({
      content: [{ type: 'text', text: 'You rolled 4.' }],
      structured: { value: 4 },
      isError: false,
    });
    expect(await eventTypes(services, { callId: call.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'tool_call_completed',
    ]);
  });

  test('an error result from the extension completes the call as an error the model reads', async ({
    bridge,
  }) => {
    const { node, dice } = bridge;
    const { pending, invocation } = await rollHandedOver(bridge);
    await node.gql(dice, ANSWER, {
      callId: invocation.callId,
      result: { content: [{ type: 'text', text: 'The dice fell off the table.' }], isError: true },
    });
    const call = await pending;
    expect(call.status).toBe('COMPLETED');
    expect(call.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'The dice fell off the table.' }],
    });
  });

  test('across processes: connected to one, dispatched by another, answered through a third', async ({
    testDb,
    bridge,
  }) => {
    const { node: a, services, dice } = bridge;
    const b = await startNode(testDb, true);
    const c = await startNode(testDb, true);
    const client = await connect(a, dice, 'dice');
    await allowDice(services);
    const run = await newRun(b.services);
    const pending = b.services.calls.request(
      { runId: run.id, name: 'ext.dice.roll', arguments: { sides: 12 } },
      agent,
    );
    const invocation = await client.next();
    const answered = await c.gql(dice, ANSWER, {
      callId: invocation.callId,
      result: { structured: { value: 11 } },
    });
    expect(answered.data.answerExtensionInvocation.status).toBe('ANSWERED');
    const call = await pending;
    expect(call.status).toBe('COMPLETED');
    expect(call.result!.structured).toEqual({ value: 11 });
    const started = (await services.journal.read({ callId: call.id, limit: 10 })).find(
      (e) => e.type === 'tool_call_started',
    )!;
    expect(started.payload.worker).toBe(b.services.dispatcher.workerId);
  });

  test('with no client of the extension connected the call is refused at once as extension_not_connected', async ({
    bridge,
  }) => {
    const { services } = bridge;
    await allowDice(services);
    const run = await newRun(services);
    const call = await services.calls.request(
      { runId: run.id, name: 'ext.dice.roll', arguments: { sides: 6 } },
      agent,
    );
    expect(call.status).toBe('FAILED');
    expect(call.error).toMatchObject({ kind: 'RECOVERABLE', code: 'extension_not_connected' });
    expect(call.result!.isError).toBe(true);
    expect((await services.runs.get(run.id))!.status).toBe('RUNNING');
    // Refused by availability before it is dispatched: not started, and not a policy violation.
    expect(await eventTypes(services, { callId: call.id })).toEqual([
      'tool_call_requested',
      'tool_call_failed',
    ]);
  });

  test('no answer before the deadline: a recoverable timeout; the late answer is refused and journaled', async ({
    bridge,
  }) => {
    const { node, services, dice } = bridge;
    const { pending, invocation } = await rollHandedOver(bridge, { budget: { timeoutMs: 1_500 } });
    const call = await pending;
    expect(call.status).toBe('FAILED');
    expect(call.error).toMatchObject({ kind: 'RECOVERABLE', code: 'timeout' });
    const late = await node.gql(dice, ANSWER, {
      callId: invocation.callId,
      result: { structured: { value: 3 } },
    });
    expect(extensionsOf(late)).toMatchObject({
      code: 'CONFLICT',
      status: 'TIMED_OUT',
      reason: 'late',
    });
    expect(await services.calls.get(call.id)).toMatchObject({ status: 'FAILED', error: { code: 'timeout' } });
    const events = await services.journal.read({ callId: call.id, limit: 10 });
    expect(events.map((e) => e.type)).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'tool_call_failed',
      'bridge_answer_rejected',
    ]);
    expect(events[3]!.payload).toMatchObject({ reason: 'late', extensionId: 'dice' });
    expect((await services.extensions.store.get(call.id))!.status).toBe('TIMED_OUT');
  });

  test('the last connection dropping mid-call ends the call at once as extension_disconnected', async ({
    bridge,
  }) => {
    const { node, services, dice } = bridge;
    const { client, pending, invocation } = await rollHandedOver(bridge);
    await client.close();
    const call = await pending;
    expect(call.status).toBe('FAILED');
    expect(call.error).toMatchObject({ kind: 'RECOVERABLE', code: 'extension_disconnected' });
    expect(await eventTypes(services, { callId: call.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'tool_call_failed',
    ]);
    const late = await node.gql(dice, ANSWER, {
      callId: invocation.callId,
      result: { structured: { value: 3 } },
    });
    expect(extensionsOf(late)).toMatchObject({ code: 'CONFLICT', reason: 'call_ended' });
  });

  test('a connection left by a killed process counts until its lease lapses, then its calls end as extension_disconnected', async ({
    bridge,
  }) => {
    const { services } = bridge;
    await services.database.db.insert(extensionConnections).values({
      id: randomUUID(),
      extensionId: 'dice',
      tokenId: randomUUID(),
      hubId: 'hub-of-a-killed-process',
      expiresAt: new Date(Date.now() + 1_000),
    });
    await allowDice(services);
    const run = await newRun(services);
    const call = await services.calls.request(
      { runId: run.id, name: 'ext.dice.roll', arguments: { sides: 6 } },
      agent,
    );
    expect(call.error).toMatchObject({ kind: 'RECOVERABLE', code: 'extension_disconnected' });
    expect((await services.extensions.store.get(call.id))!.status).toBe('DISCONNECTED');
    const again = await services.calls.request(
      { runId: run.id, name: 'ext.dice.roll', arguments: { sides: 4 } },
      agent,
    );
    expect(again.error).toMatchObject({ code: 'extension_not_connected' });
  });

  test('while another connection of the extension stays, a dropped one does not end the call', async ({
    bridge,
  }) => {
    const { node, services, dice } = bridge;
    const first = await connect(node, dice, 'dice');
    const second = new ExtensionClient(node.url, dice);
    await waitFor(async () => services.extensions.hub.connectionCount === 2);
    await allowDice(services);
    const run = await newRun(services);
    const pending = services.calls.request(
      { runId: run.id, name: 'ext.dice.roll', arguments: { sides: 6 } },
      agent,
    );
    const [seenByFirst, seenBySecond] = await Promise.all([first.next(), second.next()]);
    expect(seenBySecond.callId).toBe(seenByFirst.callId);
    await first.close();
    await waitFor(async () => services.extensions.hub.connectionCount === 1);
    await second.request(ANSWER, { callId: seenBySecond.callId, result: { structured: { value: 2 } } });
    expect((await pending).status).toBe('COMPLETED');
  });

  test('a subscription that fails while starting leaves no presence row behind', async ({ bridge }) => {
    const { node, services, dice } = bridge;
    const pending = vi
      .spyOn(services.extensions.store, 'pending')
      .mockRejectedValue(new Error('database went away'));
    const client = new ExtensionClient(node.url, dice);
    await waitFor(async () => client.errors.length > 0);
    pending.mockRestore();
    expect(services.extensions.hub.connectionCount).toBe(0);
    expect(await services.extensions.store.connected('dice')).toBe(false);
    await client.close();
  });

  test('an invocation already pending is delivered to a client that connects later', async ({ bridge }) => {
    const { node, services, dice } = bridge;
    const first = await connect(node, dice, 'dice');
    await allowDice(services);
    const run = await newRun(services);
    const pending = services.calls.request(
      { runId: run.id, name: 'ext.dice.roll', arguments: { sides: 8 } },
      agent,
    );
    const invocation = await first.next();
    const late = new ExtensionClient(node.url, dice);
    expect(await late.next()).toMatchObject({ callId: invocation.callId, arguments: { sides: 8 } });
    await late.request(ANSWER, { callId: invocation.callId, result: { structured: { value: 8 } } });
    expect((await pending).status).toBe('COMPLETED');
  });
});

describe('extension connections', () => {
  test('people see which extensions are connected, across processes, until the subscription ends', async ({
    bridge,
  }) => {
    const { node, dice } = bridge;
    const viewer = (await node.services.tokens.create({ name: 'dashboard', role: 'VIEWER', allUsers: true }))
      .secret;
    const connections = async () => {
      const res = await node.gql(viewer, '{ extensionConnections { extensionId connectedAt expiresAt } }');
      expect(res.errors).toBeUndefined();
      return res.data!.extensionConnections as Array<{ extensionId: string }>;
    };
    expect(await connections()).toEqual([]);

    const client = await connect(node, dice, 'dice');
    expect((await connections()).map((c) => c.extensionId)).toEqual(['dice']);

    await client.close();
    await waitFor(async () => (await connections()).length === 0);
  });
});

describe('revoked tokens', () => {
  test('revoking an extension token ends its subscription, and its calls fail over at once', async ({
    bridge,
  }) => {
    const { node, services, dice } = bridge;
    await connect(node, dice, 'dice');
    const [token] = (await services.tokens.list()).filter((t) => t.extensionId === 'dice');
    await services.tokens.revoke(token!.id);
    await waitFor(async () => !(await services.extensions.store.connected('dice')));

    await allowDice(services);
    const run = await newRun(services);
    const call = await services.calls.request(
      { runId: run.id, name: 'ext.dice.roll', arguments: { sides: 6 } },
      agent,
    );
    expect(call.error).toMatchObject({ kind: 'RECOVERABLE', code: 'extension_not_connected' });
  });
});

describe('extension answers', () => {
  test("answering another extension's call is NOT_FOUND, journaled, and changes nothing", async ({
    bridge,
  }) => {
    const { node, services, dice, cards } = bridge;
    const client = await connect(node, dice, 'dice');
    await allowDice(services);
    const run = await newRun(services);
    const pending = services.calls.request(
      { runId: run.id, name: 'ext.dice.roll', arguments: { sides: 6 } },
      agent,
    );
    const invocation = await client.next();
    const stolen = await node.gql(cards, ANSWER, {
      callId: invocation.callId,
      result: { structured: { value: 6 } },
    });
    expect(codeOf(stolen)).toBe('NOT_FOUND');
    const unknown = await node.gql(cards, ANSWER, {
      callId: '00000000-0000-4000-8000-00000000abcd',
      result: { structured: { value: 6 } },
    });
    expect(codeOf(unknown)).toBe('NOT_FOUND');
    expect((await services.extensions.store.get(invocation.callId))!.status).toBe('PENDING');
    await node.gql(dice, ANSWER, { callId: invocation.callId, result: { structured: { value: 1 } } });
    const call = await pending;
    expect(call.result!.structured).toEqual({ value: 1 });
    const events = await services.journal.read({ callId: call.id, limit: 10 });
    expect(events.map((e) => e.type)).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'bridge_answer_rejected',
      'tool_call_completed',
    ]);
    expect(events[2]!).toMatchObject({
      actor: 'extension:cards-extension',
      payload: { reason: 'not_owner', extensionId: 'cards' },
    });
  });

  test('only the first answer counts: a second one is a CONFLICT and journaled', async ({ bridge }) => {
    const { node, services, dice } = bridge;
    const { pending, invocation } = await rollHandedOver(bridge);
    const first = await node.gql(dice, ANSWER, {
      callId: invocation.callId,
      result: { structured: { value: 5 } },
    });
    expect(first.errors).toBeUndefined();
    const call = await pending;
    const second = await node.gql(dice, ANSWER, {
      callId: invocation.callId,
      result: { structured: { value: 6 } },
    });
    expect(extensionsOf(second)).toMatchObject({
      code: 'CONFLICT',
      status: 'ANSWERED',
      reason: 'already_answered',
    });
    expect((await services.calls.get(call.id))!.result!.structured).toEqual({ value: 5 });
    expect(await eventTypes(services, { callId: call.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'tool_call_completed',
      'bridge_answer_rejected',
    ]);
  });

  test('output that does not match the output schema is refused; the call waits for a valid answer', async ({
    bridge,
  }) => {
    const { node, services, dice } = bridge;
    const { pending, invocation } = await rollHandedOver(bridge);
    const wrong = await node.gql(dice, ANSWER, {
      callId: invocation.callId,
      result: { structured: { value: 'four' } },
    });
    expect(codeOf(wrong)).toBe('BAD_USER_INPUT');
    expect(messageOf(wrong)).toContain('/value must be integer');
    const missing = await node.gql(dice, ANSWER, {
      callId: invocation.callId,
      result: { content: [{ type: 'text', text: '4' }] },
    });
    expect(codeOf(missing)).toBe('BAD_USER_INPUT');
    expect((await services.extensions.store.get(invocation.callId))!.status).toBe('PENDING');
    await node.gql(dice, ANSWER, { callId: invocation.callId, result: { structured: { value: 4 } } });
    const call = await pending;
    expect(call.status).toBe('COMPLETED');
    const events = await services.journal.read({ callId: call.id, limit: 10 });
    expect(events.map((e) => e.type)).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'bridge_answer_rejected',
      'bridge_answer_rejected',
      'tool_call_completed',
    ]);
    expect(events[2]!.payload).toMatchObject({ reason: 'invalid_output' });
  });

  test('an answer to a call whose run was cancelled is refused', async ({ bridge }) => {
    const { node, services, dice } = bridge;
    const { run, pending, invocation } = await rollHandedOver(bridge);
    await services.runs.cancel(run.id, agent);
    await pending;
    await waitFor(
      async () => (await services.extensions.store.get(invocation.callId))!.status === 'CANCELLED',
    );
    const res = await node.gql(dice, ANSWER, {
      callId: invocation.callId,
      result: { structured: { value: 2 } },
    });
    expect(extensionsOf(res)).toMatchObject({ code: 'CONFLICT', reason: 'call_ended' });
    expect((await services.calls.get(invocation.callId))!.status).toBe('CANCELLED');
  });
});

describe('what an extension may not do', () => {
  test('it cannot write the workspace: no runs, no tool calls, no workspace reads, no reference parts', async ({
    bridge,
  }) => {
    const { node, services, dice } = bridge;
    const run = await newRun(services);
    const attempts = [
      'mutation { createRun(input: { workspaceId: "w1" }) { id } }',
      `mutation { requestToolCall(input: { runId: "${run.id}", name: "workspace.write_file", arguments: { path: "generated/x.md", content: "x" } }) { id } }`,
      '{ workspace(id: "w1") { id } }',
      `{ journal(runId: "${run.id}") { edges { cursor } } }`,
    ];
    for (const document of attempts) {
      const res = await node.gql(dice, document);
      expect(codeOf(res), document).toBe('FORBIDDEN');
    }
    const client = await connect(node, dice, 'dice');
    await allowDice(services);
    const pending = services.calls.request({ runId: run.id, name: 'ext.dice.echo', arguments: {} }, agent);
    const invocation = await client.next();
    const ref = await node.gql(dice, ANSWER, {
      callId: invocation.callId,
      result: { content: [{ type: 'file_ref', path: 'generated/x.md' }] },
    });
    expect(codeOf(ref)).toBe('BAD_USER_INPUT');
    await node.gql(dice, ANSWER, {
      callId: invocation.callId,
      result: { content: [{ type: 'text', text: 'ok' }] },
    });
    expect((await pending).status).toBe('COMPLETED');
  });
});
