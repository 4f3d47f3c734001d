import { describe, expect, it } from 'vitest';
import {
  WorldInfoError,
  type WorldInfoErrorReason,
} from '../../../../src/features/worldinfo/rules/entries.js';
import {
  extractCharacterBook,
  normalizeWorldInfo,
  parseWorldInfoJson,
} from '../../../../src/features/worldinfo/rules/worldinfo.js';
import { readFixture } from '../../../support/chat.js';

const readJson = (path: string): Record<string, unknown> => JSON.parse(readFixture(path));

/** Every field of ST's newWorldInfoEntryDefinition, as listed in the fixtures' SOURCES.md. */
const DEFINITION_FIELDS = [
  'key',
  'keysecondary',
  'comment',
  'content',
  'constant',
  'vectorized',
  'selective',
  'selectiveLogic',
  'addMemo',
  'order',
  'position',
  'disable',
  'ignoreBudget',
  'excludeRecursion',
  'preventRecursion',
  'matchPersonaDescription',
  'matchCharacterDescription',
  'matchCharacterPersonality',
  'matchCharacterDepthPrompt',
  'matchScenario',
  'matchCreatorNotes',
  'delayUntilRecursion',
  'probability',
  'useProbability',
  'depth',
  'outletName',
  'group',
  'groupOverride',
  'groupWeight',
  'scanDepth',
  'caseSensitive',
  'matchWholeWords',
  'useGroupScoring',
  'automationId',
  'role',
  'sticky',
  'cooldown',
  'delay',
  'characterFilterNames',
  'characterFilterTags',
  'characterFilterExclude',
  'triggers',
  'uid',
  'displayIndex',
];

function expectError(run: () => unknown, reason: WorldInfoErrorReason) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WorldInfoError);
    expect((error as WorldInfoError).reason).toBe(reason);
    return;
  }
  throw new Error('expected a WorldInfoError');
}

describe('Eldoria.json (old minimal shape)', () => {
  const raw = readJson('sillytavern/worlds/Eldoria.json');
  const book = parseWorldInfoJson(readFixture('sillytavern/worlds/Eldoria.json'), 'Eldoria');

  it('has the 4 entries, in file order, with every definition field', () => {
    expect(book).toMatchObject({ name: 'Eldoria', source: 'world' });
    expect(book.entries.map((entry) => entry.uid)).toEqual([0, 1, 2, 3]);
    for (const entry of book.entries)
      expect(Object.keys(entry)).toEqual(expect.arrayContaining(DEFINITION_FIELDS));
  });

  it('keeps the stored values and applies ST defaults to the missing fields', () => {
    const [eldoria] = book.entries;
    expect(eldoria).toMatchObject({
      key: ['eldoria', 'wood', 'forest', 'magical forest'],
      keysecondary: [],
      comment: '',
      constant: false,
      selective: false,
      order: 100,
      position: 0,
      disable: false,
      // defaults
      vectorized: false,
      selectiveLogic: 0,
      addMemo: false,
      ignoreBudget: false,
      probability: 100,
      useProbability: true,
      depth: 4,
      delayUntilRecursion: 0,
      scanDepth: null,
      caseSensitive: null,
      matchWholeWords: null,
      useGroupScoring: null,
      role: 0,
      sticky: null,
      cooldown: null,
      delay: null,
      outletName: '',
      group: '',
      groupWeight: 100,
      automationId: '',
      triggers: [],
      characterFilterNames: [],
      displayIndex: 0,
    });
    expect(eldoria?.content.startsWith('{{user}}: "What is Eldoria?"')).toBe(true);
  });

  it('keeps the untouched source object as raw', () => {
    const entries = raw.entries as Record<string, unknown>;
    for (const entry of book.entries) expect(entry.raw).toEqual(entries[String(entry.uid)]);
    expect(book.raw).toEqual(raw);
  });
});

describe('Eldoria.modern.json (current full export)', () => {
  const book = parseWorldInfoJson(readFixture('sillytavern/worlds/Eldoria.modern.json'), 'Eldoria');
  const old = parseWorldInfoJson(readFixture('sillytavern/worlds/Eldoria.json'), 'Eldoria');

  it('has the same 4 entries as the old file, with the same keys and content', () => {
    expect(book.entries).toHaveLength(4);
    book.entries.forEach((entry, i) => {
      expect(entry.key).toEqual(old.entries[i]?.key);
      expect(entry.content).toBe(old.entries[i]?.content);
    });
  });

  it('reads the stored modern values', () => {
    const shadowfang = book.entries[1];
    expect(shadowfang).toMatchObject({
      uid: 1,
      comment: 'shadowfang',
      selective: true,
      addMemo: true,
      displayIndex: 1,
      sticky: 0,
      cooldown: 0,
      delay: 0,
      groupWeight: 100,
      useProbability: true,
    });
    expect(Object.keys(shadowfang ?? {})).toEqual(expect.arrayContaining(DEFINITION_FIELDS));
  });

  it('normalises role null to 0 and delayUntilRecursion false to 0, keeping the originals in raw', () => {
    const [entry] = book.entries;
    expect(entry?.role).toBe(0);
    expect(entry?.raw.role).toBeNull();
    expect(entry?.delayUntilRecursion).toBe(0);
    expect(entry?.raw.delayUntilRecursion).toBe(false);
  });

  it('fills the fields the export lacks with ST defaults', () => {
    const [entry] = book.entries;
    expect(entry?.raw).not.toHaveProperty('ignoreBudget');
    expect(entry).toMatchObject({
      ignoreBudget: false,
      matchPersonaDescription: false,
      outletName: '',
      triggers: [],
      characterFilterExclude: false,
    });
  });
});

describe('character card book (爱.json)', () => {
  const card = readJson('sillytavern/characters/爱.json');
  const book = extractCharacterBook(card);
  const sourceEntries = ((card.data as Record<string, unknown>).character_book as { entries: unknown[] })
    .entries;

  it('extracts the book with its name and 27 entries', () => {
    expect(book?.name).toBe('爱');
    expect(book?.source).toBe('character_book');
    expect(book?.entries).toHaveLength(27);
    expect(book?.entries.map((entry) => entry.uid)).toEqual([...Array(27).keys()]);
  });

  it('has 8 constant entries without keys and 1 disabled entry', () => {
    const constants = book?.entries.filter((entry) => entry.constant) ?? [];
    expect(constants.map((entry) => entry.uid)).toEqual([0, 1, 21, 22, 23, 24, 25, 26]);
    expect(constants.every((entry) => entry.key.length === 0)).toBe(true);
    expect(book?.entries.filter((entry) => entry.disable).map((entry) => entry.comment)).toEqual([
      '[InitVar]请勿打开',
    ]);
  });

  it('maps V2/V3 names and snake_case extensions to ST fields', () => {
    const sect = book?.entries[2];
    expect(sect).toMatchObject({
      uid: 2,
      key: ['玄天宗', '宗门'],
      keysecondary: [],
      comment: '玄天宗',
      constant: false,
      selective: true,
      order: 30,
      position: 0,
      disable: false,
      addMemo: true,
      excludeRecursion: true,
      preventRecursion: true,
      delayUntilRecursion: 0,
      displayIndex: 2,
      depth: 0,
      probability: 100,
      useProbability: true,
      selectiveLogic: 0,
      useGroupScoring: false,
      caseSensitive: null,
      matchWholeWords: null,
      scanDepth: null,
      role: 0,
      sticky: 0,
      ignoreBudget: false,
      triggers: [],
    });
    expect(Object.keys(sect ?? {})).toEqual(expect.arrayContaining(DEFINITION_FIELDS));
  });

  it('takes position from extensions.position, else from before_char/after_char', () => {
    expect(book?.entries[8]).toMatchObject({ position: 1, comment: '李德_基础信息' });
    expect(book?.entries[22]).toMatchObject({ position: 4, comment: '阶段指导' });
    const { extensions: _ignored, ...withoutExtensions } = sourceEntries[8] as Record<string, unknown>;
    const bare = normalizeWorldInfo({ entries: [withoutExtensions] });
    expect(bare.entries[0]?.position).toBe(1);
  });

  it('keeps each source entry, extensions and use_regex included, as raw', () => {
    for (const [i, entry] of (book?.entries ?? []).entries()) expect(entry.raw).toBe(sourceEntries[i]);
    expect(book?.entries[0]?.raw.use_regex).toBe(true);
  });

  it('normalises a bare character_book the same way', () => {
    const bare = normalizeWorldInfo((card.data as Record<string, unknown>).character_book);
    expect(bare.name).toBe('爱');
    expect(bare.entries).toEqual(book?.entries);
  });
});

describe('card edge cases', () => {
  it('returns null for a card without a book', () => {
    expect(extractCharacterBook({ name: 'x', data: { name: 'x' } })).toBeNull();
    expect(extractCharacterBook({ name: 'v1 card' })).toBeNull();
  });

  it("names an unnamed book after the character, as ST's Import Card Lore does", () => {
    const book = extractCharacterBook({ data: { name: 'Seraphina', character_book: { entries: [] } } });
    expect(book?.name).toBe("Seraphina's Lorebook");
  });

  it('gives entries without id the smallest free ids, and reads a comma-separated key string as keys, reporting it', () => {
    const book = normalizeWorldInfo({
      entries: [
        { keys: ['a'], content: 'A', enabled: true },
        { id: 0, keys: 'b, c', content: 'B', enabled: true, name: 'named' },
        { keys: [], content: 'C' },
      ],
    });
    expect(book.entries.map((entry) => [entry.uid, entry.key, entry.comment, entry.disable])).toEqual([
      [1, ['a'], '', false],
      [0, ['b', 'c'], 'named', false],
      [2, [], '', true],
    ]);
    expect(book.notes).toEqual([
      'entries[1].keys: a comma-separated string, read as 2 keys as SillyTavern does',
    ]);
  });

  it('reads a world file characterFilter object into the three filter fields', () => {
    const book = normalizeWorldInfo({
      entries: {
        5: { uid: 5, key: ['k'], characterFilter: { isExclude: true, names: ['Aqua'], tags: ['t1'] } },
      },
    });
    expect(book.entries[0]).toMatchObject({
      uid: 5,
      characterFilterExclude: true,
      characterFilterNames: ['Aqua'],
      characterFilterTags: ['t1'],
    });
  });
});

describe('world info errors', () => {
  it('rejects invalid JSON', () => expectError(() => parseWorldInfoJson('{nope'), 'INVALID_JSON'));
  it('rejects a non-object file', () => expectError(() => normalizeWorldInfo([]), 'NOT_AN_OBJECT'));
  it('rejects a file without entries', () =>
    expectError(() => normalizeWorldInfo({ name: 'x' }), 'ENTRIES_MISSING'));
  it('rejects an entry that is not an object', () =>
    expectError(() => normalizeWorldInfo({ entries: { 0: 'text' } }), 'ENTRY_NOT_OBJECT'));
  it('rejects a card that is not an object', () =>
    expectError(() => extractCharacterBook('card'), 'NOT_AN_OBJECT'));
});

describe('a field of the wrong type refuses the book with its path', () => {
  const card = (entry: Record<string, unknown>) => ({
    spec: 'chara_card_v2',
    data: {
      name: 'X',
      character_book: { entries: [{ keys: ['k'], content: 'c', enabled: true, ...entry }] },
    },
  });
  const refused = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(WorldInfoError);
      return [
        (error as WorldInfoError).reason,
        (error as WorldInfoError).message,
        (error as WorldInfoError).details?.path,
      ];
    }
    throw new Error('expected a WorldInfoError');
  };

  it.each([
    [{ keys: 42 }, 'data.character_book.entries[0].keys', 'an array of strings, got number 42'],
    [{ content: { text: 'x' } }, 'data.character_book.entries[0].content', 'a string, got an object'],
    [
      { insertion_order: 'first' },
      'data.character_book.entries[0].insertion_order',
      'a number, got the string "first"',
    ],
    [{ keys: ['a', null] }, 'data.character_book.entries[0].keys[1]', 'a string, got null'],
    [{ enabled: 'yes' }, 'data.character_book.entries[0].enabled', 'true or false, got the string "yes"'],
    [
      { extensions: { depth: '4' } },
      'data.character_book.entries[0].extensions.depth',
      'a number, got the string "4"',
    ],
    [
      { extensions: { role: 1.5 } },
      'data.character_book.entries[0].extensions.role',
      'an integer, got number 1.5',
    ],
  ])('in a card book: %j', (entry, path, expected) => {
    expect(refused(() => extractCharacterBook(card(entry)))).toEqual([
      'FIELD_TYPE',
      `${path}: expected ${expected}`,
      path,
    ]);
  });

  it.each([
    [{ key: 42 }, 'entries["7"].key', 'an array of strings, got number 42'],
    [{ order: '100' }, 'entries["7"].order', 'a number, got the string "100"'],
    [{ selectiveLogic: 9 }, 'entries["7"].selectiveLogic', 'an integer from 0 to 3, got number 9'],
    [
      { characterFilter: { names: true } },
      'entries["7"].characterFilter.names',
      'an array of strings, got boolean true',
    ],
  ])('in a world file: %j', (entry, path, expected) => {
    expect(refused(() => normalizeWorldInfo({ entries: { 7: { uid: 7, ...entry } } }))).toEqual([
      'FIELD_TYPE',
      `${path}: expected ${expected}`,
      path,
    ]);
  });

  it('reads null as the default and an unknown card position as after_char, reporting the position', () => {
    const book = extractCharacterBook(
      card({ insertion_order: null, position: 'top', extensions: { role: null } }),
    )!;
    expect(book.entries[0]).toMatchObject({ order: 100, position: 1, role: 0 });
    expect(book.notes).toEqual([
      'data.character_book.entries[0].position: "top" is neither before_char nor after_char; read as after_char, as SillyTavern does',
    ]);
  });
});
