import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { rowsOf } from '../../../src/db/tx.js';
import { cjkBigrams } from '../../../src/features/chat/rules/search.js';
import { chatJsonl, fixtureChats, readChat } from '../../support/chat.js';
import { dbTest as test } from '../../support/fixtures.js';

describe('chat import and export', () => {
  test.for(fixtureChats)('%s imports and exports byte for byte', async (name, { services }) => {
    const text = readChat(name);
    const chat = await services.chats.importChat(text, { id: 'c', fileName: name, actor: 'test' });
    expect(await services.chats.exportChatText(chat.id)).toBe(text);
    expect(chat.byteSize).toBe(Buffer.byteLength(text));
  });

  test('the Seraphina export keeps its non-standard system line, header and message count', async ({
    services,
  }) => {
    const chat = await services.chats.importChat(readChat(fixtureChats[0]!), { id: 's', actor: 'test' });
    expect(chat).toMatchObject({
      headerShape: 'modern',
      userName: 'Orion',
      characterName: 'Seraphina',
      messageCount: 4,
    });
    const [first] = await services.chats.messagesPage('s', { limit: 1, inverted: false });
    expect(first).toMatchObject({ index: 0, role: 'system', nonStandard: true, name: '' });
    expect(Object.keys(JSON.parse(first!.raw))).toEqual(['system']);
  });

  test('a legacy TavernAI chat keeps its numeric dates', async ({ services }) => {
    const chat = await services.chats.importChat(readChat(fixtureChats[1]!), { id: 'aqua', actor: 'test' });
    expect(chat.headerShape).toBe('legacy');
    expect(chat.createDate).toEqual(new Date(1674559896839));
    const [greeting] = await services.chats.messagesPage('aqua', { limit: 1, inverted: false });
    expect(typeof greeting!.sendDate).toBe('number');
    expect(greeting!.sentAt).toEqual(new Date(greeting!.sendDate as number));
  });

  test('blank lines, CRLF endings, a BOM and a missing final newline survive the round trip', async ({
    services,
  }) => {
    const text = `\uFEFF{"user_name":"u","character_name":"c","chat_metadata":{}}\r\n\n{"name":"u","is_user":true,"mes":"hi",  "x":1.50}\r\n   \n{"name":"c","is_user":false,"mes":"yo"}`;
    await services.chats.importChat(text, { id: 'odd', actor: 'test' });
    expect(await services.chats.exportChatText('odd')).toBe(text);
  });

  test('NUL characters and lone surrogates in a message are stored readable and exported as written', async ({
    services,
  }) => {
    const text = `{"chat_metadata":{}}\n{"name":"u","is_user":true,"mes":"a\\u0000b\\ud800c"}\n`;
    await services.chats.importChat(text, { id: 'esc', actor: 'test' });
    const [message] = await services.chats.messagesPage('esc', { limit: 1, inverted: false });
    expect(message!.text).toBe('a\uFFFDb\uFFFDc');
    expect(await services.chats.exportChatText('esc')).toBe(text);
  });

  test('streams from byte chunks split inside characters and reports progress', async ({ services }) => {
    const text = chatJsonl(Array.from({ length: 2500 }, (_, i) => `第${i}条消息 message ${i}`));
    const bytes = Buffer.from(text);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 1001) }, (_, i) =>
      bytes.subarray(i * 1001, (i + 1) * 1001),
    );
    const progress: number[] = [];
    const chat = await services.chats.importChat(Readable.from(chunks), {
      id: 'stream',
      actor: 'test',
      onProgress: (p) => progress.push(p.messages),
    });
    expect(chat.messageCount).toBe(2500);
    expect(progress).toEqual([1000, 2000, 2500]);
    expect(await services.chats.exportChatText('stream')).toBe(text);
  });

  test('a second import with the same id is a CONFLICT unless it replaces', async ({ services }) => {
    await services.chats.importChat(chatJsonl(['one']), { id: 'dup', actor: 'test' });
    await expect(
      services.chats.importChat(chatJsonl(['two']), { id: 'dup', actor: 'test' }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      message: 'a chat with id dup exists already',
    });
    const replaced = await services.chats.importChat(chatJsonl(['two', 'three']), {
      id: 'dup',
      replace: true,
      actor: 'test',
    });
    expect(replaced.messageCount).toBe(2);
  });

  test('a broken line rejects the whole file, naming the line, and leaves nothing behind', async ({
    services,
  }) => {
    const text = `${chatJsonl(['fine'])}{"name": oops}\n`;
    await expect(services.chats.importChat(text, { id: 'bad', actor: 'test' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      message: expect.stringMatching(/^chat JSONL line 3: invalid JSON/),
    });
    expect(await services.chats.get('bad')).toBeNull();
  });

  test('an empty file is refused', async ({ services }) => {
    await expect(services.chats.importChat('\n\n', { id: 'empty', actor: 'test' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      message: 'chat JSONL line 2: the file has no header line',
    });
  });

  test('the SQL bigram function agrees with the one the query planner uses', async ({ services }) => {
    const text = '他忽然提起了饕餮的传说 OK カタカナ 한국 𠀀𠀁 哈哈哈';
    const [row] = rowsOf<{ bigrams: string[] }>(
      await services.database.db.execute(sql`select ats_cjk_bigrams(${text}) as bigrams`),
    );
    expect([...new Set(row!.bigrams)].sort()).toEqual(cjkBigrams(text).sort());
  });
});
