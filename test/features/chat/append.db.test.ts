import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import type { Principal } from '../../../src/core/auth.js';
import { MAX_APPEND_MESSAGES } from '../../../src/features/chat/rules/append.js';
import { chatJsonl } from '../../support/chat.js';
import { type Role, dbTest as test } from '../../support/fixtures.js';
import { admin, agent, allow, newRun, structured } from '../../support/lifecycle.js';

const APPEND = `mutation($chatId: ID!, $messages: [JSON!]!) {
  appendChatMessages(chatId: $chatId, messages: $messages) { firstIndex count chat { messageCount } }
}`;

const SEARCH = `query($chatId: ID!, $q: String!) {
  searchChat(chatId: $chatId, input: { query: $q }) { hits { ref index name } }
}`;

const message = (mes: string, extra: Record<string, unknown> = {}) => ({
  name: 'Traveler',
  is_user: true,
  is_system: false,
  send_date: '2024-08-07@18h50m00s',
  mes,
  ...extra,
});

async function seed(services: Services, jsonl = chatJsonl(['hello', 'welcome back'])) {
  await services.chats.importChat(jsonl, { id: 'c', ownerUserId: 'u1', actor: 'test' });
}

const codes = (result: { errors?: Array<{ extensions?: { code?: string } }> }) =>
  (result.errors ?? []).map((e) => e.extensions?.code);

describe('appendChatMessages', () => {
  test('appends after the last message and searchChat finds the new one at once', async ({
    services,
    gql,
    tokens,
  }) => {
    await seed(services);
    const appended = await gql(
      APPEND,
      { chatId: 'c', messages: [message('The Obsidianwren sang at dawn.')] },
      tokens.HOST,
    );
    expect(appended).toEqual({
      data: { appendChatMessages: { firstIndex: 2, count: 1, chat: { messageCount: 3 } } },
    });
    const found = await gql(SEARCH, { chatId: 'c', q: 'obsidianwren' }, tokens.HOST);
    expect(found.data!.searchChat.hits).toEqual([{ ref: 'chat:c#2', index: 2, name: 'Traveler' }]);
  });

  test('the chat.search tool of a run on the chat sees the appended message', async ({ services, gql }) => {
    await seed(services);
    await allow(services, 'chat.*');
    const run = await newRun(services, { chatId: 'c' });
    await gql(APPEND, { chatId: 'c', messages: [message('饕餮 appears'), message('and leaves')] });
    const done = await services.calls.request(
      { runId: run.id, name: 'chat.search', arguments: { query: '饕餮' } },
      agent,
    );
    expect(structured(done).hits.map((hit: { ref: string }) => hit.ref)).toEqual(['chat:c#2']);
  });

  test('an export is the imported file followed by the appended lines, and its size and hash follow', async ({
    services,
  }) => {
    const jsonl = chatJsonl(['a', 'b']);
    await seed(services, jsonl);
    const extra = message('c', { extra: { swipes: ['c', 'd'] } });
    const { chat } = await services.chats.appendMessages(admin, 'c', [extra]);
    const exported = await services.chats.exportChatText('c');
    const expected = `${jsonl.endsWith('\n') ? jsonl : `${jsonl}\n`}${JSON.stringify(extra)}\n`;
    expect(exported).toBe(expected);
    expect(chat.byteSize).toBe(Buffer.byteLength(expected));
    expect(chat.sha256).toBe(createHash('sha256').update(expected).digest('hex'));
  });

  test('a file that ended without a newline gets one before the first appended line', async ({
    services,
    gql,
  }) => {
    const jsonl = chatJsonl(['a']).replace(/\n$/, '');
    await seed(services, jsonl);
    await gql(APPEND, { chatId: 'c', messages: [message('b')] });
    expect(await services.chats.exportChatText('c')).toBe(`${jsonl}\n${JSON.stringify(message('b'))}\n`);
  });

  test("a caller not bound to the chat's user finds no chat, exactly as for a missing one", async ({
    services,
  }) => {
    await seed(services);
    const aliceOnly: Principal = { ...admin, name: 'alice-approver', role: 'APPROVER', users: ['alice'] };
    const append = (id: string) =>
      services.chats
        .appendMessages(aliceOnly, id, [message('x')])
        .catch((error: { code: string; message: string }) => [error.code, error.message]);
    expect(await append('c')).toEqual(['NOT_FOUND', 'no chat c']);
    expect(await append('nope')).toEqual(['NOT_FOUND', 'no chat nope']);
    expect((await services.chats.require('c')).messageCount).toBe(2);
  });

  test('a chat of only a header, without a newline, gets its first message at index 0', async ({
    services,
    gql,
  }) => {
    const header = chatJsonl([]).trimEnd();
    await seed(services, header);
    const appended = await gql(APPEND, { chatId: 'c', messages: [message('first')] });
    expect(appended.data!.appendChatMessages).toMatchObject({ firstIndex: 0, count: 1 });
    expect(await services.chats.exportChatText('c')).toBe(`${header}\n${JSON.stringify(message('first'))}\n`);
  });

  test('a chat that does not exist is NOT_FOUND', async ({ gql, tokens }) => {
    const result = await gql(APPEND, { chatId: 'nope', messages: [message('x')] }, tokens.HOST);
    expect(codes(result)).toEqual(['NOT_FOUND']);
  });

  test.for<Role>(['AGENT', 'APPROVER', 'VIEWER', 'EXTENSION'])(
    'a %s token is FORBIDDEN and nothing is appended',
    async (role, { services, gql, tokens }) => {
      await seed(services);
      expect(codes(await gql(APPEND, { chatId: 'c', messages: [message('x')] }, tokens[role]))).toEqual([
        'FORBIDDEN',
      ]);
      expect((await services.chats.require('c')).messageCount).toBe(2);
    },
  );

  test('a malformed message is BAD_USER_INPUT naming its index, and none of the batch is appended', async ({
    services,
    gql,
  }) => {
    await seed(services);
    const result = await gql(APPEND, {
      chatId: 'c',
      messages: [message('fine'), { name: 'Traveler', mes: 42 }],
    });
    expect(result.errors).toEqual([
      expect.objectContaining({
        message: 'messages[1]: `mes` must be a string, got number',
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', index: 1 }),
      }),
    ]);
    expect((await services.chats.require('c')).messageCount).toBe(2);
  });

  test('a batch over the limit is BAD_USER_INPUT', async ({ services, gql }) => {
    await seed(services);
    const messages = Array.from({ length: MAX_APPEND_MESSAGES + 1 }, (_, i) => message(`m${i}`));
    const result = await gql(APPEND, { chatId: 'c', messages });
    expect(codes(result)).toEqual(['BAD_USER_INPUT']);
    expect(result.errors![0]!.message).toBe(
      `messages: at most ${MAX_APPEND_MESSAGES} per call, got ${MAX_APPEND_MESSAGES + 1}`,
    );
    expect((await services.chats.require('c')).messageCount).toBe(2);
  });

  test('two concurrent appends line up one after the other', async ({ services, gql }) => {
    await seed(services);
    const results = await Promise.all([
      gql(APPEND, { chatId: 'c', messages: [message('x1'), message('x2')] }),
      gql(APPEND, { chatId: 'c', messages: [message('y1'), message('y2')] }),
    ]);
    expect(results.map((r) => r.data!.appendChatMessages.firstIndex).sort()).toEqual([2, 4]);
    const page = await services.chats.messagesPage('c', { limit: 10, inverted: false });
    expect(page.map((m) => m.index)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
