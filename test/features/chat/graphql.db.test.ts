import { describe, expect } from 'vitest';
import { chatJsonl, fixtureChats, readChat } from '../../support/chat.js';
import { type Role, dbTest as test } from '../../support/fixtures.js';

const ALL: Role[] = ['ADMIN', 'APPROVER', 'AGENT', 'EXTENSION', 'VIEWER'];
const READERS: Role[] = ['ADMIN', 'APPROVER', 'AGENT', 'VIEWER'];
const NIL = '00000000-0000-4000-8000-000000000000';

/** Every root field of issue 7, who may use it, and an operation that exercises it. */
const operations = [
  { field: 'chats', document: '{ chats { edges { node { id } } } }', allowed: READERS },
  { field: 'chat', document: '{ chat(id: "c") { id } }', allowed: READERS },
  { field: 'exportChat', document: '{ exportChat(id: "c") }', allowed: READERS },
  {
    field: 'searchChat',
    document: '{ searchChat(chatId: "c", input: { query: "x" }) { matched } }',
    allowed: READERS,
  },
  { field: 'skills', document: '{ skills { name } }', allowed: READERS },
  { field: 'skill', document: '{ skill(name: "x") { name } }', allowed: READERS },
  { field: 'skillRules', document: '{ skillRules { id } }', allowed: READERS },
  { field: 'visibleSkills', document: '{ visibleSkills(profileId: "p") { name } }', allowed: READERS },
  { field: 'lorebooks', document: '{ lorebooks { id } }', allowed: READERS },
  { field: 'lorebook', document: `{ lorebook(id: "${NIL}") { id } }`, allowed: READERS },
  { field: 'exportLorebook', document: `{ exportLorebook(id: "${NIL}") }`, allowed: READERS },
  { field: 'worldInfoActivation', document: '{ worldInfoActivation(chatId: "c") { id } }', allowed: READERS },
  {
    field: 'importChat',
    document: 'mutation { importChat(input: { jsonl: "{}" }) { id } }',
    allowed: ['ADMIN'],
  },
  {
    field: 'importSkills',
    document: 'mutation { importSkills(skills: [{ files: [{ path: "SKILL.md", content: "" }] }]) { name } }',
    allowed: ['ADMIN'],
  },
  {
    field: 'setSkillRule',
    document: 'mutation { setSkillRule(input: { pattern: "*", effect: VISIBLE }) { id } }',
    allowed: ['ADMIN'],
  },
  { field: 'removeSkillRule', document: `mutation { removeSkillRule(id: "${NIL}") }`, allowed: ['ADMIN'] },
  {
    field: 'importLorebook',
    document: 'mutation { importLorebook(input: { json: "{}" }) { id } }',
    allowed: ['ADMIN'],
  },
  {
    field: 'recordWorldInfoActivation',
    document: 'mutation { recordWorldInfoActivation(input: { chatId: "c", entries: [] }) { id } }',
    allowed: ['ADMIN', 'AGENT'],
  },
  {
    field: 'computeWorldInfoActivation',
    document: `mutation { computeWorldInfoActivation(input: { chatId: "c", lorebookIds: ["${NIL}"] }) { id } }`,
    allowed: ['ADMIN', 'AGENT'],
  },
];

describe('chat, skill and world info API: who may do what', () => {
  const cells = operations.flatMap((op) =>
    ALL.map((role) => ({ ...op, role, ok: op.allowed.includes(role) })),
  );
  test.for(cells)('$field as $role: allowed=$ok', async ({ document, role, ok, field }, { gql, tokens }) => {
    const codes = ((await gql(document, {}, tokens[role])).errors ?? []).map((e) => e.extensions?.code);
    if (ok) {
      expect(codes, `${field} must not be refused to ${role}`).not.toContain('FORBIDDEN');
      expect(codes).not.toContain('UNAUTHENTICATED');
    } else {
      expect(codes).toEqual(['FORBIDDEN']);
    }
  });

  test.for(operations)('$field without a token is UNAUTHENTICATED', async ({ document }, { gql }) => {
    expect((await gql(document, {}, null)).errors!.map((e) => e.extensions?.code)).toEqual([
      'UNAUTHENTICATED',
    ]);
  });
});

describe('chats over GraphQL', () => {
  const importChat = `mutation($input: ImportChatInput!) { importChat(input: $input) {
    id fileName headerShape userName characterName createDate messageCount byteSize sha256 header } }`;

  test('importChat stores a fixture and exportChat gives the same bytes back', async ({ gql }) => {
    const jsonl = readChat(fixtureChats[0]!);
    const res = await gql(importChat, { input: { jsonl, id: 'sera', fileName: 'Seraphina.jsonl' } });
    expect(res.errors).toBeUndefined();
    expect(res.data!.importChat).toMatchObject({
      id: 'sera',
      fileName: 'Seraphina.jsonl',
      headerShape: 'modern',
      userName: 'Orion',
      characterName: 'Seraphina',
      createDate: '2024-08-07T18:45:42.000Z',
      messageCount: 4,
      byteSize: Buffer.byteLength(jsonl),
    });
    expect(res.data!.importChat.header).toEqual(JSON.parse(jsonl.split('\n')[0]!));
    expect((await gql('{ exportChat(id: "sera") }')).data!.exportChat).toBe(jsonl);
  });

  test('messages page through a connection and filter by role', async ({ gql }) => {
    await gql(importChat, { input: { jsonl: chatJsonl(['a', 'b', 'c', 'd', 'e']), id: 'c' } });
    const first = await gql(
      '{ chat(id: "c") { messages(first: 2) { edges { cursor node { index ref role text } } pageInfo { hasNextPage endCursor } } } }',
    );
    const page = first.data!.chat.messages;
    expect(page.edges.map((e: { node: unknown }) => e.node)).toEqual([
      { index: 0, ref: 'chat:c#0', role: 'USER', text: 'a' },
      { index: 1, ref: 'chat:c#1', role: 'ASSISTANT', text: 'b' },
    ]);
    expect(page.pageInfo.hasNextPage).toBe(true);
    const next = await gql(
      'query($after: String) { chat(id: "c") { messages(first: 2, after: $after, role: USER) { edges { node { index raw } } } } }',
      {
        after: page.pageInfo.endCursor,
      },
    );
    expect(next.data!.chat.messages.edges.map((e: { node: { index: number } }) => e.node.index)).toEqual([
      2, 4,
    ]);
    expect(next.data!.chat.messages.edges[0].node.raw).toMatchObject({ mes: 'c', is_user: true });
  });

  test('chats lists imported chats by id', async ({ gql }) => {
    for (const id of ['b', 'a']) await gql(importChat, { input: { jsonl: chatJsonl(['x']), id } });
    const res = await gql('{ chats { edges { node { id messageCount } } } }');
    expect(res.data!.chats.edges.map((e: { node: unknown }) => e.node)).toEqual([
      { id: 'a', messageCount: 1 },
      { id: 'b', messageCount: 1 },
    ]);
  });

  test('searchChat runs the tool search for UIs', async ({ gql }) => {
    await gql(importChat, { input: { jsonl: chatJsonl(['饕餮', 'no', '饕餮饕餮']), id: 'c' } });
    const res = await gql(
      '{ searchChat(chatId: "c", input: { query: "饕餮", roles: [USER] }) { matched hits { index role score snippet } } }',
    );
    expect(res.data!.searchChat).toEqual({
      matched: 2,
      hits: [
        { index: 2, role: 'USER', score: 2, snippet: '饕餮饕餮' },
        { index: 0, role: 'USER', score: 1, snippet: '饕餮' },
      ],
    });
  });

  test('a broken file is BAD_USER_INPUT naming the line', async ({ gql }) => {
    const res = await gql(importChat, { input: { jsonl: '{"chat_metadata":{}}\n[1]\n' } });
    expect(res.errors![0]).toMatchObject({
      message: 'chat JSONL line 2: a message must be a JSON object, got an array',
      extensions: { code: 'BAD_USER_INPUT', reason: 'MESSAGE_NOT_OBJECT', line: 2 },
    });
  });

  test('a chat id with control characters is refused', async ({ gql }) => {
    const res = await gql(importChat, { input: { jsonl: chatJsonl(['x']), id: 'a\nb' } });
    expect(res.errors![0]).toMatchObject({
      message: 'input.id: must not contain control characters',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  test('exporting an unknown chat is NOT_FOUND', async ({ gql }) => {
    expect((await gql('{ exportChat(id: "nope") }')).errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });
});
