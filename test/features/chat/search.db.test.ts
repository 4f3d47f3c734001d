import { sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { rowsOf } from '../../../src/db/tx.js';
import { RANK_WINDOW } from '../../../src/features/chat/shapes.js';
import { chatJsonl } from '../../support/chat.js';
import { dbTest as test } from '../../support/fixtures.js';
import { generateChatJsonl } from '../../support/generate-chat.js';

const texts = [
  '我们去后山练剑吧。', // 0 user
  '师兄在藏经阁读书。饕餮的传说很古老。', // 1 assistant
  'The Obsidianwren sang twice.', // 2 user
  '饕餮！饕餮！他喊了两次。', // 3 assistant
  'an obsidianwrens nest, and a silver key', // 4 user
  'A key made of silver: 50% off, plan_b.', // 5 assistant
];

async function seed(services: Services) {
  await services.chats.importChat(chatJsonl(texts), { id: 'c', actor: 'test' });
}

const indices = (result: { hits: Array<{ index: number }> }) => result.hits.map((hit) => hit.index);

describe('chat search', () => {
  test('a two-character Chinese query finds exactly the messages containing it, most occurrences first', async ({
    services,
  }) => {
    await seed(services);
    const result = await services.chats.search('c', { query: '饕餮' });
    expect(indices(result)).toEqual([3, 1]);
    expect(result.hits.map((hit) => hit.score)).toEqual([2, 1]);
    expect(result).toMatchObject({ chatId: 'c', terms: ['饕餮'], matched: 2, capped: false });
  });

  test('a hit carries its ref, role, name, date, snippet and a cursor', async ({ services }) => {
    await seed(services);
    const { hits } = await services.chats.search('c', { query: '藏经阁' });
    expect(hits).toEqual([
      {
        ref: 'chat:c#1',
        index: 1,
        role: 'assistant',
        name: '沈念',
        sentAt: '2024-08-07T10:00:01.000Z',
        score: 1,
        snippet: '师兄在藏经阁读书。饕餮的传说很古老。',
        snippetStart: 0,
        chars: 18,
        cursor: expect.any(String),
      },
    ]);
  });

  test('a Latin query matches case-insensitively inside words, whole words ranking first', async ({
    services,
  }) => {
    await seed(services);
    const result = await services.chats.search('c', { query: 'OBSIDIANWREN' });
    expect(indices(result)).toEqual([2, 4]);
    expect(result.hits.map((hit) => hit.score)).toEqual([2, 1]);
  });

  test('every term of a query must occur, in any order', async ({ services }) => {
    await seed(services);
    expect(indices(await services.chats.search('c', { query: 'silver key' }))).toEqual([5, 4]);
    expect(indices(await services.chats.search('c', { query: 'silver 饕餮' }))).toEqual([]);
  });

  test('filters by role and by index range', async ({ services }) => {
    await seed(services);
    expect(indices(await services.chats.search('c', { query: 'key', roles: ['user'] }))).toEqual([4]);
    expect(indices(await services.chats.search('c', { query: '饕餮', fromIndex: 2, toIndex: 5 }))).toEqual([
      3,
    ]);
  });

  test('no hits is an empty result', async ({ services }) => {
    await seed(services);
    expect(await services.chats.search('c', { query: '麒麟' })).toEqual({
      chatId: 'c',
      terms: ['麒麟'],
      hits: [],
      matched: 0,
      capped: false,
    });
  });

  test('LIKE wildcards in a query are plain characters', async ({ services }) => {
    await seed(services);
    expect(indices(await services.chats.search('c', { query: '50%' }))).toEqual([5]);
    expect(indices(await services.chats.search('c', { query: 'n_b' }))).toEqual([5]);
    expect(indices(await services.chats.search('c', { query: '%' }))).toEqual([5]);
  });

  test('terms too short for an index (one CJK character, two letters) still match', async ({ services }) => {
    await seed(services);
    expect(indices(await services.chats.search('c', { query: '剑' }))).toEqual([0]);
    expect(indices(await services.chats.search('c', { query: 'an' }))).toEqual([4, 2, 5]);
  });

  test('a snippet around a late match is cut with ellipses', async ({ services }) => {
    await services.chats.importChat(chatJsonl([`${'前'.repeat(100)}饕餮${'后'.repeat(300)}`]), {
      id: 'long',
      actor: 'test',
    });
    const [hit] = (await services.chats.search('long', { query: '饕餮' })).hits;
    expect(hit!.snippetStart).toBe(40);
    expect(hit!.snippet).toBe(`…${'前'.repeat(60)}饕餮${'后'.repeat(138)}…`);
  });

  test('searches only the given chat', async ({ services }) => {
    await seed(services);
    await services.chats.importChat(chatJsonl(['饕餮 elsewhere']), { id: 'other', actor: 'test' });
    expect(indices(await services.chats.search('other', { query: '饕餮' }))).toEqual([0]);
  });

  test(`ranks among the newest ${RANK_WINDOW} matches and says so when more match`, async ({ services }) => {
    await services.chats.importChat(
      chatJsonl(Array.from({ length: RANK_WINDOW + 5 }, (_, i) => `lantern ${i}`)),
      {
        id: 'many',
        actor: 'test',
      },
    );
    const result = await services.chats.search('many', { query: 'lantern', limit: 3 });
    expect(result).toMatchObject({ matched: RANK_WINDOW, capped: true });
    expect(indices(result)).toEqual([RANK_WINDOW + 4, RANK_WINDOW + 3, RANK_WINDOW + 2]);
  });

  test('rejects a query with too many terms', async ({ services }) => {
    await seed(services);
    await expect(services.chats.search('c', { query: 'a b c d e f g h i' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      message: 'query: at most 8 terms (words separated by spaces)',
    });
  });

  test('agrees with a plain ILIKE scan for every kind of query on a generated chat', async ({ services }) => {
    await services.chats.importChat([...generateChatJsonl({ messages: 3000, seed: 7 })].join('\n'), {
      id: 'g',
      actor: 'test',
    });
    const queries = [
      '师兄',
      '藏经阁',
      '后山 练剑',
      'library',
      'LANTERN',
      'the',
      'ok',
      '了',
      'map 地图',
      'obsidianwren',
      'plan B的事',
      '“',
    ];
    for (const query of queries) {
      const terms = query.split(' ');
      const where = sql.join(
        terms.map((term) => sql`"text" ilike ${`%${term.replace(/[\\%_]/g, '\\$&')}%`}`),
        sql` and `,
      );
      const scan = rowsOf<{ idx: number }>(
        await services.database.db.execute(
          sql`select idx from chat_messages where chat_id = 'g' and ${where} order by idx desc`,
        ),
      ).map((row) => row.idx);
      const result = await services.chats.search('g', { query, limit: 100 });
      expect(result.matched, query).toBe(Math.min(scan.length, RANK_WINDOW));
      expect(result.capped, query).toBe(scan.length > RANK_WINDOW);
      const hits = indices(result);
      if (scan.length <= 100)
        expect(
          hits.slice().sort((a, b) => b - a),
          query,
        ).toEqual(scan);
      else expect(scan, query).toEqual(expect.arrayContaining(hits));
    }
  });
});
