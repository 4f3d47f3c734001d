import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import type { RunRow } from '../../../src/calls/tables.js';
import { CARD, chatJsonl, fixtureWorlds, readFixture } from '../../support/chat.js';
import { dbTest } from '../../support/fixtures.js';
import { agent, allow, eventTypes, newRun, resultText, structured } from '../../support/lifecycle.js';

const importEldoria = (services: Services) =>
  services.worldInfo.importLorebook(
    { json: readFixture('sillytavern/worlds/Eldoria.json'), fileName: 'Eldoria.json' },
    'test',
  );

type LorebookRow = Awaited<ReturnType<typeof importEldoria>>;

/** `eldoria`: the Eldoria lorebook imported, and a run on u1's chat c that may call the worldinfo tools. */
const test = dbTest.extend<{ eldoria: { book: LorebookRow; run: RunRow } }>({
  eldoria: async ({ services }, use) => {
    const book = await importEldoria(services);
    await allow(services, 'worldinfo.*');
    await services.chats.importChat(chatJsonl(['hello']), { id: 'c', ownerUserId: 'u1', actor: 'test' });
    await use({ book, run: await newRun(services, { chatId: 'c' }) });
  },
});

describe('lorebook import', () => {
  test.for(fixtureWorlds)('%s imports every entry and exports as it was', async (path, { services }) => {
    const json = readFixture(path);
    const book = await services.worldInfo.importLorebook({ json, fileName: path.split('/').pop() }, 'test');
    expect(book).toMatchObject({
      source: 'world',
      entryCount: 4,
      name: path.endsWith('modern.json') ? 'Eldoria.modern' : 'Eldoria',
    });
    expect(await services.worldInfo.exportLorebook(book.id)).toEqual(JSON.parse(json));
  });

  test('a world entry keeps every SillyTavern field with its defaults, and its raw source', async ({
    services,
  }) => {
    const book = await importEldoria(services);
    const [first] = await services.worldInfo.entries(book.id);
    expect(first).toMatchObject({ uid: 0, ordinal: 0, mapKey: '0', name: 'eldoria' });
    expect(first!.fields).toMatchObject({
      key: ['eldoria', 'wood', 'forest', 'magical forest'],
      constant: false,
      selective: false,
      order: 100,
      position: 0,
      probability: 100,
      depth: 4,
      matchWholeWords: null,
      uid: 0,
      displayIndex: 0,
    });
    expect(Object.keys(JSON.parse(first!.raw))).toEqual([
      'uid',
      'key',
      'keysecondary',
      'comment',
      'content',
      'constant',
      'selective',
      'order',
      'position',
      'disable',
    ]);
  });

  test('the character book inside the Chinese card imports and exports as it was', async ({ services }) => {
    const card = JSON.parse(readFixture(CARD));
    const book = await services.worldInfo.importLorebook(
      { json: readFixture(CARD), fileName: '爱.json' },
      'test',
    );
    expect(book).toMatchObject({ source: 'character_book', entryCount: 27, name: '爱' });
    expect(await services.worldInfo.exportLorebook(book.id)).toEqual(card.data.character_book);
    const entries = await services.worldInfo.entries(book.id);
    expect(entries[9]).toMatchObject({ uid: 9, name: '沈念_基础信息', mapKey: null });
    expect(entries[9]!.fields).toMatchObject({
      key: ['沈念', '念念', '师妹'],
      position: 1,
      order: 91,
      disable: false,
    });
    expect(entries[23]!.fields.disable).toBe(true);
  });

  test('a card without a character book is refused with a message that says so', async ({ services }) => {
    await expect(
      services.worldInfo.importLorebook(
        { json: JSON.stringify({ spec: 'chara_card_v2', data: { name: 'x' } }) },
        'test',
      ),
    ).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      message:
        'this JSON has no "entries" (a world info file) and no data.character_book (a character card with a lorebook)',
    });
  });

  test('invalid JSON is refused', async ({ services }) => {
    await expect(services.worldInfo.importLorebook({ json: '{"entries": ' }, 'test')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      message: expect.stringMatching(/^the lorebook is not valid JSON/),
    });
  });
});

describe('world info activation', () => {
  test('the host records entries in prompt order, with content as sent', async ({ services }) => {
    const book = await importEldoria(services);
    const activation = await services.worldInfo.recordActivation(
      {
        chatId: 'c',
        entries: [
          { lorebookId: book.id, uid: 2 },
          { lorebookId: book.id, uid: 0, content: 'macro-expanded' },
        ],
      },
      'agent:host',
    );
    expect(activation).toMatchObject({ chatId: 'c', runId: null, source: 'HOST', createdBy: 'agent:host' });
    expect(
      activation.entries.map((e) => [e.ref, e.name, e.content.slice(0, 14), e.position, e.constant]),
    ).toEqual([
      [`wi:${book.id}#2`, 'glade', expect.any(String), 0, false],
      [`wi:${book.id}#0`, 'eldoria', 'macro-expanded', 0, false],
    ]);
    expect(activation.entries[1]!.size).toBe(14);
  });

  test('recording an entry that does not exist is NOT_FOUND', async ({ services }) => {
    const book = await importEldoria(services);
    await expect(
      services.worldInfo.recordActivation(
        { chatId: 'c', entries: [{ lorebookId: book.id, uid: 99 }] },
        'test',
      ),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', message: `lorebook ${book.id} has no entry with uid 99` });
  });

  test('an activation needs a run or a chat', async ({ services }) => {
    await expect(services.worldInfo.recordActivation({ entries: [] }, 'test')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      message: 'runId: give a runId, a chatId or both',
    });
  });

  test('computing scans the newest messages with the keys and keeps constant entries', async ({
    services,
  }) => {
    const book = await services.worldInfo.importLorebook({ json: readFixture(CARD) }, 'test');
    const texts = ['我想去合欢宗看看', '好啊', '听说玄天宗很厉害'];
    await services.chats.importChat(chatJsonl(texts, { character: 'Narrator' }), { id: 'c', actor: 'test' });
    const activation = await services.worldInfo.computeActivation(
      { chatId: 'c', lorebookIds: [book.id] },
      'test',
    );
    // Scan depth 2 reaches "好啊" and "玄天宗", not "合欢宗"; entry 23 is constant but disabled.
    expect(activation.entries.map((e) => e.uid)).toEqual([21, 0, 1, 2, 22, 24, 25, 26]);
    expect(activation.entries.find((e) => e.uid === 2)).toMatchObject({
      matchedKey: '玄天宗',
      constant: false,
    });
    expect(activation).toMatchObject({
      source: 'COMPUTED',
      chatId: 'c',
      budget: { limit: null, overflowed: false },
    });
  });

  test('computing with a deeper scan and a budget drops what does not fit', async ({ services }) => {
    const book = await importEldoria(services);
    await services.chats.importChat(chatJsonl(['a shadowfang in the forest!', 'the glade is safe', 'ok']), {
      id: 'c',
      actor: 'test',
    });
    const activation = await services.worldInfo.computeActivation(
      { chatId: 'c', lorebookIds: [book.id], scanDepth: 3, budget: 2000 },
      'test',
    );
    expect(activation.entries.map((e) => e.name)).toEqual(['eldoria']);
    // Its content as SillyTavern sends it: {{user}} and {{char}} are the chat's Traveler and 沈念.
    const content: string = JSON.parse(readFixture('sillytavern/worlds/Eldoria.json')).entries['0'].content;
    const sent = content.replaceAll('{{user}}', 'Traveler').replaceAll('{{char}}', '沈念');
    expect(activation.entries[0]!.content).toBe(sent);
    expect(activation.budget).toEqual({ limit: 2000, used: [...sent].length, overflowed: true });
  });

  test('computing for a chat that was never imported is NOT_FOUND', async ({ services }) => {
    const book = await importEldoria(services);
    await expect(
      services.worldInfo.computeActivation({ chatId: 'nope', lorebookIds: [book.id] }, 'test'),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'no chat nope',
    });
  });
});

describe('worldinfo.read_activated through the lifecycle', () => {
  const read = (services: Services, runId: string, args: Record<string, unknown> = {}) =>
    services.calls.request({ runId, name: 'worldinfo.read_activated', arguments: args }, agent);

  test('without an activation it is a recoverable error that says so', async ({
    services,
    eldoria: { run },
  }) => {
    const done = await read(services, run.id);
    expect(done.status).toBe('FAILED');
    expect(done.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'no_activation',
      message:
        'No world info has been activated yet for this run or its chat (c). Continue without world info.',
    });
    expect(await eventTypes(services, { callId: done.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'tool_call_failed',
    ]);
  });

  test("returns the index of the run's activation", async ({ services, eldoria: { book, run } }) => {
    await services.worldInfo.recordActivation(
      {
        runId: run.id,
        entries: [
          { lorebookId: book.id, uid: 1 },
          { lorebookId: book.id, uid: 3 },
        ],
      },
      'test',
    );
    const done = await read(services, run.id);
    expect(done.status).toBe('COMPLETED');
    expect(structured(done).entries).toEqual([
      {
        ref: `wi:${book.id}#1`,
        name: 'shadowfang',
        lorebook: 'Eldoria',
        size: 914,
        position: 'before_char',
        depth: null,
        constant: false,
        order: 100,
      },
      {
        ref: `wi:${book.id}#3`,
        name: 'power',
        lorebook: 'Eldoria',
        size: 710,
        position: 'before_char',
        depth: null,
        constant: false,
        order: 100,
      },
    ]);
    expect(structured(done)).toMatchObject({
      activation: { source: 'HOST', runId: run.id },
      contents: null,
      omitted: [],
    });
    expect(resultText(done)).toMatch(
      /^Latest world info activation \(recorded by the app, .*\): 2 entries\.\n- wi:/,
    );
    expect(await eventTypes(services, { callId: done.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'tool_call_completed',
    ]);
  });

  test("falls back to the chat's latest activation, and prefers the run's own", async ({
    services,
    eldoria: { book, run },
  }) => {
    await services.worldInfo.recordActivation(
      { chatId: 'c', entries: [{ lorebookId: book.id, uid: 0 }] },
      'test',
    );
    expect(structured(await read(services, run.id)).entries.map((e: { name: string }) => e.name)).toEqual([
      'eldoria',
    ]);
    await services.worldInfo.recordActivation(
      { runId: run.id, entries: [{ lorebookId: book.id, uid: 2 }] },
      'test',
    );
    await services.worldInfo.recordActivation(
      { chatId: 'c', entries: [{ lorebookId: book.id, uid: 3 }] },
      'test',
    );
    expect(structured(await read(services, run.id)).entries.map((e: { name: string }) => e.name)).toEqual([
      'glade',
    ]);
  });

  test('returns the contents of chosen entries in prompt order', async ({
    services,
    eldoria: { book, run },
  }) => {
    const eldoria = JSON.parse(readFixture('sillytavern/worlds/Eldoria.json'));
    await services.worldInfo.recordActivation(
      { runId: run.id, entries: [0, 1, 2].map((uid) => ({ lorebookId: book.id, uid })) },
      'test',
    );
    const done = await read(services, run.id, { refs: [`wi:${book.id}#2`, `wi:${book.id}#1`] });
    expect(structured(done).contents).toEqual([
      {
        ref: `wi:${book.id}#1`,
        name: 'shadowfang',
        text: eldoria.entries['1'].content,
        size: 914,
        truncated: false,
      },
      {
        ref: `wi:${book.id}#2`,
        name: 'glade',
        text: eldoria.entries['2'].content,
        size: 954,
        truncated: false,
      },
    ]);
    expect(resultText(done)).toBe(
      `## shadowfang (wi:${book.id}#1)\n${eldoria.entries['1'].content}\n\n## glade (wi:${book.id}#2)\n${eldoria.entries['2'].content}`,
    );
  });

  test('entries past the budget are named, not shown; one entry over the whole budget is cut', async ({
    services,
    eldoria: { book, run },
  }) => {
    await services.worldInfo.recordActivation(
      { runId: run.id, entries: [1, 2, 0].map((uid) => ({ lorebookId: book.id, uid })) },
      'test',
    );
    const refs = [0, 1, 2].map((uid) => `wi:${book.id}#${uid}`);
    const partial = structured(await read(services, run.id, { refs, maxChars: 1000 }));
    expect(partial.contents.map((c: { ref: string; truncated: boolean }) => [c.ref, c.truncated])).toEqual([
      [refs[1], false],
    ]);
    expect(partial.omitted).toEqual([
      { ref: refs[2], size: 954 },
      { ref: refs[0], size: 1551 },
    ]);
    const cut = await read(services, run.id, { refs: [refs[0]], maxChars: 100 });
    expect(structured(cut).contents).toEqual([
      expect.objectContaining({ ref: refs[0], size: 1551, truncated: true }),
    ]);
    expect(structured(cut).contents[0].text).toHaveLength(100);
    expect(resultText(cut)).toContain(
      '[cut: 100 of 1551 characters shown; call again with this ref alone and maxChars up to 50000]',
    );
  });

  test('a ref that is not in the activation is a recoverable error pointing to the index', async ({
    services,
    eldoria: { book, run },
  }) => {
    await services.worldInfo.recordActivation(
      { runId: run.id, entries: [{ lorebookId: book.id, uid: 0 }] },
      'test',
    );
    const done = await read(services, run.id, { refs: ['wi:nope#1'] });
    expect(done.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'unknown_ref',
      message:
        'Not in the latest activation: wi:nope#1. Call worldinfo.read_activated without refs for the index.',
    });
  });
});
