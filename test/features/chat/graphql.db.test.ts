import { describe, expect } from 'vitest';
import { CARD, chatJsonl, fixtureChats, readChat, readFixture, skillFolder } from '../../support/chat.js';
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

describe('skills over GraphQL', () => {
  const importSkills =
    'mutation($skills: [SkillFolderInput!]!) { importSkills(skills: $skills) { name description warnings files { path chars } } }';

  test('importSkills stores folders and skill(name) reads their files', async ({ gql }) => {
    const folder = skillFolder('internal-comms');
    const res = await gql(importSkills, { skills: [folder] });
    expect(res.errors).toBeUndefined();
    expect(res.data!.importSkills[0]).toMatchObject({ name: 'internal-comms', warnings: [] });
    const read = await gql('{ skill(name: "internal-comms") { files { path content } } }');
    expect(read.data!.skill.files).toEqual(folder.files.map(({ path, content }) => ({ path, content })));
  });

  test('a malformed skill is BAD_USER_INPUT naming the file and the problem', async ({ gql }) => {
    const res = await gql(importSkills, {
      skills: [
        {
          folderName: 'bad',
          files: [{ path: 'SKILL.md', content: '---\nname: Bad Name\ndescription: d\n---\n' }],
        },
      ],
    });
    expect(res.errors![0]).toMatchObject({
      message:
        'bad/SKILL.md: name "Bad Name" must use only lowercase letters, digits and single hyphens, not at the start or end',
      extensions: { code: 'BAD_USER_INPUT', reason: 'NAME_INVALID', file: 'bad/SKILL.md' },
    });
  });

  test('skill rules decide visibleSkills', async ({ gql }) => {
    await gql(importSkills, { skills: [skillFolder('internal-comms'), skillFolder('brand-guidelines')] });
    await gql('mutation { setSkillRule(input: { pattern: "*", effect: VISIBLE }) { id } }');
    const deny = await gql(
      'mutation { setSkillRule(input: { profileId: "p1", pattern: "brand-*", effect: DENY, reason: "off-brand" }) { id effect reason } }',
    );
    expect(deny.data!.setSkillRule).toMatchObject({ effect: 'DENY', reason: 'off-brand' });
    expect((await gql('{ visibleSkills(profileId: "p1") { name } }')).data!.visibleSkills).toEqual([
      { name: 'internal-comms' },
    ]);
    expect((await gql('{ skillRules(profileId: "p1") { pattern effect } }')).data!.skillRules).toEqual([
      { pattern: '*', effect: 'VISIBLE' },
      { pattern: 'brand-*', effect: 'DENY' },
    ]);
    await gql(`mutation { removeSkillRule(id: "${deny.data!.setSkillRule.id}") }`);
    expect((await gql('{ visibleSkills(profileId: "p1") { name } }')).data!.visibleSkills).toHaveLength(2);
  });

  test('a rule pattern that is not a skill name or glob is refused', async ({ gql }) => {
    const res = await gql(
      'mutation { setSkillRule(input: { pattern: "Bad/Name", effect: VISIBLE }) { id } }',
    );
    expect(res.errors![0]).toMatchObject({
      message: 'input.pattern: must be a skill name or a glob of a-z 0-9 - * ?',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });
});

describe('lorebooks and activations over GraphQL', () => {
  const importLorebook =
    'mutation($input: ImportLorebookInput!) { importLorebook(input: $input) { id name source entryCount } }';

  test('importLorebook takes a card, lorebook(id) lists its entries and exportLorebook rebuilds the book', async ({
    gql,
  }) => {
    const res = await gql(importLorebook, { input: { json: readFixture(CARD), fileName: '爱.json' } });
    expect(res.data!.importLorebook).toMatchObject({ name: '爱', source: 'character_book', entryCount: 27 });
    const id = res.data!.importLorebook.id;
    const book = await gql(
      `{ lorebook(id: "${id}") { entries { uid name keys constant disabled position order } } }`,
    );
    expect(book.data!.lorebook.entries[2]).toEqual({
      uid: 2,
      name: '玄天宗',
      keys: ['玄天宗', '宗门'],
      constant: false,
      disabled: false,
      position: 'before_char',
      order: 30,
    });
    const exported = await gql(`{ exportLorebook(id: "${id}") }`);
    expect(exported.data!.exportLorebook).toEqual(JSON.parse(readFixture(CARD)).data.character_book);
  });

  test('an agent records an activation and reads it back', async ({ gql, tokens }) => {
    const id = (
      await gql(importLorebook, {
        input: { json: readFixture('sillytavern/worlds/Eldoria.json'), name: 'Eldoria' },
      })
    ).data!.importLorebook.id;
    const recorded = await gql(
      `mutation { recordWorldInfoActivation(input: { chatId: "c", entries: [{ lorebookId: "${id}", uid: 3, content: "power!" }] }) {
        source createdBy entries { ref name position content size constant } } }`,
      {},
      tokens.AGENT,
    );
    expect(recorded.data!.recordWorldInfoActivation).toEqual({
      source: 'HOST',
      createdBy: 'agent:test-agent',
      entries: [
        {
          ref: `wi:${id}#3`,
          name: 'power',
          position: 'before_char',
          content: 'power!',
          size: 6,
          constant: false,
        },
      ],
    });
    const latest = await gql('{ worldInfoActivation(chatId: "c") { entries { uid } } }', {}, tokens.VIEWER);
    expect(latest.data!.worldInfoActivation.entries).toEqual([{ uid: 3 }]);
  });

  test('computeWorldInfoActivation scans the chat', async ({ gql }) => {
    const id = (
      await gql(importLorebook, { input: { json: readFixture('sillytavern/worlds/Eldoria.json') } })
    ).data!.importLorebook.id;
    await gql('mutation($input: ImportChatInput!) { importChat(input: $input) { id } }', {
      input: { jsonl: chatJsonl(['Is this glade a safe haven?']), id: 'c' },
    });
    const res =
      await gql(`mutation { computeWorldInfoActivation(input: { chatId: "c", lorebookIds: ["${id}"] }) {
      source entries { uid matchedKey } budget } }`);
    expect(res.data!.computeWorldInfoActivation).toEqual({
      source: 'COMPUTED',
      entries: [{ uid: 2, matchedKey: 'glade' }],
      budget: { limit: null, used: 954, overflowed: false },
    });
  });
});
