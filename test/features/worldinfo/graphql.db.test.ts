import { describe, expect } from 'vitest';
import { CARD, chatJsonl, readFixture } from '../../support/chat.js';
import { dbTest as test } from '../../support/fixtures.js';

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

  test('an agent records an activation and a viewer of its user reads it back', async ({ gql, tokens }) => {
    await gql('mutation($input: ImportChatInput!) { importChat(input: $input) { id } }', {
      input: { jsonl: chatJsonl(['hello']), id: 'c', ownerUserId: 'u1' },
    });
    // An agent writes activations only for chats its own runs name.
    await gql('mutation { createRun(input: { profileId: "p1", chatId: "c" }) { id } }', {}, tokens.AGENT);
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
      source entries { uid matchedKey content } budget } }`);
    // The glade entry as SillyTavern sends it: {{user}} and {{char}} are the chat's Traveler and 沈念.
    const content: string = JSON.parse(readFixture('sillytavern/worlds/Eldoria.json')).entries['2'].content;
    const sent = content.replaceAll('{{user}}', 'Traveler').replaceAll('{{char}}', '沈念');
    expect(res.data!.computeWorldInfoActivation).toEqual({
      source: 'COMPUTED',
      entries: [{ uid: 2, matchedKey: 'glade', content: sent }],
      budget: { limit: null, used: [...sent].length, overflowed: false },
    });
  });
});
