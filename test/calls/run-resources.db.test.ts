import { describe, expect } from 'vitest';
import type { Services } from '../../src/app/services.js';
import { createGraphQLHandler } from '../../src/graphql/yoga.js';
import { chatJsonl } from '../support/chat.js';
import { dbTest, type Gql } from '../support/fixtures.js';
import { admin, eventTypes } from '../support/lifecycle.js';
import { servicesWith } from '../support/workspace.js';

const CREATE = `mutation($input: CreateRunInput!) { createRun(input: $input) { id userId workspaceId chatId } }`;

/** An agent token acting for alice on profiles p*, and an approver bound to alice only. */
async function aliceTokens(services: Services) {
  const agent = await services.tokens.create({
    name: 'alice-agent',
    role: 'AGENT',
    userId: 'alice',
    profiles: ['p*'],
  });
  const approver = await services.tokens.create({
    name: 'alice-approver',
    role: 'APPROVER',
    users: ['alice'],
  });
  return { agent: agent.secret, approver: approver.secret };
}

/** Bob's chat (imported for him by an admin) and bob's workspace (claimed by a run of his, with a file). */
async function bobsThings(services: Services) {
  await services.chats.importChat(chatJsonl(['the dragon sleeps']), {
    id: 'bob-chat',
    ownerUserId: 'bob',
    actor: 'test',
  });
  const run = await services.runs.create({ userId: 'bob', workspaceId: 'bob-ws' }, admin);
  await services.workspaces.admin.importFiles(
    services.workspaces.admin.operatorSession('bob-ws', 'test'),
    [{ path: 'output/secret.md', content: Buffer.from('bob only') }],
    { ownerUserId: 'bob' },
  );
  return { runId: run.id };
}

const test = dbTest.extend<{ alice: { agent: string; approver: string } }>({
  alice: async ({ services }, use) => {
    await bobsThings(services);
    await use(await aliceTokens(services));
  },
});

const error = (res: Awaited<ReturnType<Gql>>) => ({
  code: res.errors?.[0]?.extensions?.code,
  message: res.errors?.[0]?.message,
});

describe("an agent for alice and bob's runs and resources", () => {
  test('it cannot create a run for bob', async ({ gql, alice }) => {
    const res = await gql(CREATE, { input: { userId: 'bob', profileId: 'p1' } }, alice.agent);
    expect(error(res)).toEqual({ code: 'FORBIDDEN', message: 'this token acts for user alice, not bob' });
  });

  test("it cannot name bob's workspace, and no run is made", async ({ gql, alice, services }) => {
    const res = await gql(CREATE, { input: { profileId: 'p1', workspaceId: 'bob-ws' } }, alice.agent);
    expect(error(res)).toEqual({ code: 'FORBIDDEN', message: 'workspace bob-ws belongs to another user' });
    const runs = await services.runs.page(admin, { limit: 10, inverted: false });
    expect(runs.map((r) => r.userId)).toEqual(['bob']);
  });

  test("it cannot name bob's chat", async ({ gql, alice }) => {
    const res = await gql(CREATE, { input: { profileId: 'p1', chatId: 'bob-chat' } }, alice.agent);
    expect(error(res)).toEqual({ code: 'FORBIDDEN', message: 'chat bob-chat belongs to another user' });
  });

  test('a chat that was never imported is NOT_FOUND', async ({ gql, alice }) => {
    const res = await gql(CREATE, { input: { profileId: 'p1', chatId: 'nope' } }, alice.agent);
    expect(error(res)).toEqual({ code: 'NOT_FOUND', message: 'no chat nope' });
  });

  test('a profile outside the token’s profiles is FORBIDDEN', async ({ gql, alice }) => {
    const res = await gql(CREATE, { input: { profileId: 'q1' } }, alice.agent);
    expect(error(res)).toEqual({
      code: 'FORBIDDEN',
      message: "profile q1 is not one of this token's profiles: p*",
    });
  });

  test('a workspace named for the first time is created for alice, and her next run shares it', async ({
    gql,
    alice,
    services,
  }) => {
    const first = await gql(CREATE, { input: { profileId: 'p1', workspaceId: 'alice-ws' } }, alice.agent);
    expect(first.data!.createRun).toMatchObject({ userId: 'alice', workspaceId: 'alice-ws' });
    expect((await services.workspaces.store.get('alice-ws'))!.ownerUserId).toBe('alice');
    const second = await gql(CREATE, { input: { profileId: 'p2', workspaceId: 'alice-ws' } }, alice.agent);
    expect(second.errors).toBeUndefined();
  });

  test("a workspace that belongs to nobody is another user's to a run with a user", async ({
    gql,
    alice,
    services,
  }) => {
    await services.workspaces.admin.importFiles(
      services.workspaces.admin.operatorSession('shared', 'test'),
      [{ path: 'inputs/brief.md', content: Buffer.from('brief') }],
      { ownerUserId: null },
    );
    const res = await gql(CREATE, { input: { profileId: 'p1', workspaceId: 'shared' } }, alice.agent);
    expect(error(res)).toEqual({ code: 'FORBIDDEN', message: 'workspace shared belongs to another user' });
    // A run without a user (an admin's) may use it.
    expect((await services.runs.create({ workspaceId: 'shared' }, admin)).workspaceId).toBe('shared');
  });

  test("once an admin gives bob's chat to alice, her runs may name it", async ({ gql, alice }) => {
    await gql('mutation { setChatOwner(id: "bob-chat", userId: "alice") { ownerUserId } }');
    const res = await gql(CREATE, { input: { profileId: 'p1', chatId: 'bob-chat' } }, alice.agent);
    expect(res.data!.createRun).toMatchObject({ userId: 'alice', chatId: 'bob-chat' });
  });

  test("it cannot read bob's workspace or chat through GraphQL", async ({ gql, alice }) => {
    const reads = await gql(
      `{ workspace(id: "bob-ws") { id }
         chat(id: "bob-chat") { id }
         chats { edges { node { id } } }
         worldInfoActivation(chatId: "bob-chat") { id } }`,
      {},
      alice.agent,
    );
    expect(reads).toEqual({
      data: { workspace: null, chat: null, chats: { edges: [] }, worldInfoActivation: null },
    });
    for (const document of [
      '{ exportChat(id: "bob-chat") }',
      '{ searchChat(chatId: "bob-chat", input: { query: "dragon" }) { matched } }',
    ]) {
      expect(error(await gql(document, {}, alice.agent)), document).toEqual({
        code: 'NOT_FOUND',
        message: 'no chat bob-chat',
      });
    }
  });

  test("it reads alice's chat only once one of its runs names it", async ({ gql, alice, services }) => {
    await services.chats.importChat(chatJsonl(['hello']), {
      id: 'alice-chat',
      ownerUserId: 'alice',
      actor: 'test',
    });
    const read = '{ chat(id: "alice-chat") { id ownerUserId } }';
    expect((await gql(read, {}, alice.agent)).data).toEqual({ chat: null });
    await gql(CREATE, { input: { profileId: 'p1', chatId: 'alice-chat' } }, alice.agent);
    expect((await gql(read, {}, alice.agent)).data).toEqual({
      chat: { id: 'alice-chat', ownerUserId: 'alice' },
    });
    expect((await gql('{ chats { edges { node { id } } } }', {}, alice.agent)).data).toEqual({
      chats: { edges: [{ node: { id: 'alice-chat' } }] },
    });
  });
});

describe("alice's USER deny holds whatever the agent writes", () => {
  const denyEchoForAlice = (services: Services) =>
    Promise.all([
      services.policy.set({ layer: 'PROFILE', scopeId: 'p1', toolPattern: 'test.*', effect: 'ALLOW' }, admin),
      services.policy.set(
        { layer: 'USER', scopeId: 'alice', toolPattern: 'test.echo', effect: 'DENY' },
        admin,
      ),
    ]);

  test('a run for mallory is FORBIDDEN', async ({ gql, alice, services }) => {
    await denyEchoForAlice(services);
    const res = await gql(CREATE, { input: { userId: 'mallory', profileId: 'p1' } }, alice.agent);
    expect(error(res)).toEqual({ code: 'FORBIDDEN', message: 'this token acts for user alice, not mallory' });
  });

  test('a run without a userId is alice’s, and the deny hides and refuses the tool', async ({
    gql,
    alice,
    services,
  }) => {
    await denyEchoForAlice(services);
    const created = await gql(
      `mutation { createRun(input: { profileId: "p1" }) { id userId effectiveTools { tool { name } visible } } }`,
      {},
      alice.agent,
    );
    const run = created.data!.createRun;
    expect(run.userId).toBe('alice');
    expect(run.effectiveTools).toContainEqual({ tool: { name: 'test.echo' }, visible: false });
    const call = await gql(
      `mutation($id: ID!) { requestToolCall(input: { runId: $id, name: "test.echo", arguments: { text: "hi" } }) { status error { kind code } } }`,
      { id: run.id },
      alice.agent,
    );
    expect(call.data!.requestToolCall).toEqual({
      status: 'FAILED',
      error: { kind: 'POLICY_DENIED', code: 'tool_not_available' },
    });
    expect(await eventTypes(services, { runId: run.id })).toEqual([
      'run_started',
      'tool_call_requested',
      'policy_violation',
      'tool_call_failed',
      'run_failed',
    ]);
  });
});

describe('people see the chats and workspaces of their users', () => {
  test("an approver for alice lists only alice's chats, and bob's reads as absent", async ({
    gql,
    alice,
    services,
  }) => {
    await services.chats.importChat(chatJsonl(['hi']), {
      id: 'alice-chat',
      ownerUserId: 'alice',
      actor: 'test',
    });
    await services.chats.importChat(chatJsonl(['hi']), { id: 'nobodys', actor: 'test' });
    const res = await gql(
      '{ chats { edges { node { id } } } chat(id: "bob-chat") { id } workspace(id: "bob-ws") { id } }',
      {},
      alice.approver,
    );
    expect(res.data).toEqual({
      chats: { edges: [{ node: { id: 'alice-chat' } }] },
      chat: null,
      workspace: null,
    });
  });

  test('admins see every chat, ownerless ones too', async ({ gql, alice: _tokens, services }) => {
    await services.chats.importChat(chatJsonl(['hi']), { id: 'nobodys', actor: 'test' });
    const res = await gql('{ chats { edges { node { id ownerUserId } } } }');
    expect(res.data!.chats.edges.map((e: { node: unknown }) => e.node)).toEqual([
      { id: 'bob-chat', ownerUserId: 'bob' },
      { id: 'nobodys', ownerUserId: null },
    ]);
  });
});

describe("an agent reads its user's workspace only through its runs' visible roots", () => {
  test('files outside the profile’s visible roots are not shown', async ({ testDb }) => {
    const services = await servicesWith(testDb, {
      defaultRoots: [
        { path: 'output', writable: true },
        { path: 'inputs', writable: false },
      ],
      requiredArtifacts: ['output/'],
      profiles: { p1: { visible: ['output'] } },
    });
    try {
      const yoga = createGraphQLHandler(services);
      const gql: Gql = async (query, variables, token) => {
        const response = await yoga.fetch('http://localhost/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ query, variables }),
        });
        return (await response.json()) as never;
      };
      const { agent } = await aliceTokens(services);
      await gql(CREATE, { input: { profileId: 'p1', workspaceId: 'alice-ws' } }, agent);
      await services.workspaces.admin.importFiles(
        services.workspaces.admin.operatorSession('alice-ws', 'test'),
        [
          { path: 'output/draft.md', content: Buffer.from('draft') },
          { path: 'inputs/notes.md', content: Buffer.from('hidden from p1') },
        ],
        { ownerUserId: 'alice' },
      );
      const res = await gql(
        `{ workspace(id: "alice-ws") {
            roots { path writable }
            files { path }
            tree { path }
            hidden: file(path: "inputs/notes.md") { text }
            shown: file(path: "output/draft.md") { text }
            checkpoints { files { path } }
            diff { files { path } unified }
        } }`,
        {},
        agent,
      );
      expect(res.errors).toBeUndefined();
      const workspace = res.data!.workspace;
      expect(workspace.roots).toEqual([{ path: 'output', writable: true }]);
      expect(workspace.files).toEqual([{ path: 'output/draft.md' }]);
      expect(workspace.tree).toEqual([{ path: 'output' }]);
      expect(workspace.hidden).toBeNull();
      expect(workspace.shown).toEqual({ text: 'draft' });
      expect(workspace.checkpoints).toEqual([{ files: [{ path: 'output/draft.md' }] }]);
      expect(workspace.diff.files).toEqual([{ path: 'output/draft.md' }]);
      expect(workspace.diff.unified).not.toContain('inputs/notes.md');
      // An admin sees every file.
      const { secret } = await services.tokens.create({ name: 'root', role: 'ADMIN' });
      const all = await gql('{ workspace(id: "alice-ws") { files { path } } }', {}, secret);
      expect(all.data!.workspace.files).toEqual([{ path: 'inputs/notes.md' }, { path: 'output/draft.md' }]);
    } finally {
      await services.stop();
    }
  });
});
