import { describe, expect, it } from 'vitest';
import { parseChatJsonl } from '../../../../src/features/chat/rules/jsonl.js';
import {
  type ActivationMessage,
  type ActivationOptions,
  activateWorldInfo,
  matchKey,
  parseRegexKey,
} from '../../../../src/features/worldinfo/rules/activation.js';
import {
  normalizeWorldEntry,
  type WorldInfoEntry,
} from '../../../../src/features/worldinfo/rules/entries.js';
import {
  extractCharacterBook,
  parseWorldInfoJson,
} from '../../../../src/features/worldinfo/rules/worldinfo.js';
import { readFixture } from '../../../support/chat.js';

let nextUid = 0;
function entry(fields: Record<string, unknown>): WorldInfoEntry {
  const uid = typeof fields.uid === 'number' ? fields.uid : nextUid++;
  return normalizeWorldEntry({ uid, content: `content ${uid}`, ...fields }, uid, uid);
}

const said = (...texts: string[]): ActivationMessage[] => texts.map((text) => ({ name: 'User', text }));

function activatedUids(
  entries: WorldInfoEntry[],
  messages: ActivationMessage[],
  options?: ActivationOptions,
) {
  return activateWorldInfo(entries, messages, options).activated.map((activated) => activated.uid);
}

describe('constant and disabled entries', () => {
  it('activates a constant entry with no messages at all', () => {
    expect(activatedUids([entry({ uid: 1, constant: true })], [])).toEqual([1]);
  });

  it('never activates a disabled entry, keyed or constant', () => {
    const entries = [
      entry({ uid: 1, key: ['dragon'], disable: true }),
      entry({ uid: 2, constant: true, disable: true }),
    ];
    expect(activatedUids(entries, said('a dragon appears'))).toEqual([]);
  });
});

describe('primary and secondary keys', () => {
  it('activates when any primary key matches and reports that key', () => {
    const result = activateWorldInfo([entry({ uid: 1, key: ['wolf', 'dragon'] })], said('a dragon appears'));
    expect(result.activated[0]).toMatchObject({ uid: 1, reason: 'keys', matchedKey: 'dragon' });
  });

  it('does not activate without a primary match, whatever the secondary keys', () => {
    const e = entry({ key: ['dragon'], keysecondary: ['cave'], selectiveLogic: 2 });
    expect(activatedUids([e], said('a quiet cave'))).toEqual([]);
  });

  it('AND_ANY (0): needs one secondary key', () => {
    const e = entry({
      uid: 1,
      key: ['dragon'],
      keysecondary: ['cave', 'gold'],
      selective: true,
      selectiveLogic: 0,
    });
    expect(activatedUids([e], said('the dragon sleeps on gold'))).toEqual([1]);
    expect(
      activateWorldInfo([e], said('the dragon sleeps on gold')).activated[0]?.matchedSecondaryKeys,
    ).toEqual(['gold']);
    expect(activatedUids([e], said('the dragon sleeps'))).toEqual([]);
  });

  it('NOT_ALL (1): needs at least one secondary key missing', () => {
    const e = entry({
      uid: 1,
      key: ['dragon'],
      keysecondary: ['cave', 'gold'],
      selective: true,
      selectiveLogic: 1,
    });
    expect(activatedUids([e], said('the dragon sleeps on gold'))).toEqual([1]);
    expect(activatedUids([e], said('the dragon sleeps on gold in a cave'))).toEqual([]);
  });

  it('NOT_ANY (2): needs every secondary key missing', () => {
    const e = entry({
      uid: 1,
      key: ['dragon'],
      keysecondary: ['cave', 'gold'],
      selective: true,
      selectiveLogic: 2,
    });
    expect(activatedUids([e], said('the dragon sleeps'))).toEqual([1]);
    expect(activatedUids([e], said('the dragon sleeps on gold'))).toEqual([]);
  });

  it('AND_ALL (3): needs every secondary key', () => {
    const e = entry({
      uid: 1,
      key: ['dragon'],
      keysecondary: ['cave', 'gold'],
      selective: true,
      selectiveLogic: 3,
    });
    expect(activatedUids([e], said('the dragon sleeps on gold in a cave'))).toEqual([1]);
    expect(activateWorldInfo([e], said('dragon, gold, cave')).activated[0]?.matchedSecondaryKeys).toEqual([
      'cave',
      'gold',
    ]);
    expect(activatedUids([e], said('the dragon sleeps on gold'))).toEqual([]);
  });

  it('ignores secondary keys when the entry is not selective', () => {
    const e = entry({ uid: 1, key: ['dragon'], keysecondary: ['cave'], selective: false, selectiveLogic: 3 });
    expect(activatedUids([e], said('the dragon sleeps'))).toEqual([1]);
  });

  it('skips empty keys', () => {
    expect(activatedUids([entry({ key: ['', '   '] })], said('anything'))).toEqual([]);
  });
});

describe('case sensitivity', () => {
  it('is case-insensitive by default', () => {
    expect(activatedUids([entry({ uid: 1, key: ['Dragon'] })], said('a DRAGON'))).toEqual([1]);
  });

  it('honours the entry setting over the global one', () => {
    const e = entry({ uid: 1, key: ['Dragon'], caseSensitive: true });
    expect(activatedUids([e], said('a dragon'))).toEqual([]);
    expect(activatedUids([e], said('a Dragon'))).toEqual([1]);
    const lenient = entry({ uid: 2, key: ['Dragon'], caseSensitive: false });
    expect(activatedUids([lenient], said('a dragon'), { caseSensitive: true })).toEqual([2]);
  });

  it('uses the global setting when the entry has none', () => {
    expect(activatedUids([entry({ key: ['Dragon'] })], said('a dragon'), { caseSensitive: true })).toEqual(
      [],
    );
  });
});

describe('whole words', () => {
  it('matches inside words by default', () => {
    expect(activatedUids([entry({ uid: 1, key: ['forest'] })], said('the forests'))).toEqual([1]);
  });

  it('requires word boundaries when enabled (entry or global)', () => {
    const e = entry({ uid: 1, key: ['forest'], matchWholeWords: true });
    expect(activatedUids([e], said('the forests'))).toEqual([]);
    expect(activatedUids([e], said('the forest, at night'))).toEqual([1]);
    expect(
      activatedUids([entry({ key: ['forest'] })], said('the forests'), { matchWholeWords: true }),
    ).toEqual([]);
  });

  it('matches a key with spaces as a substring, as ST does', () => {
    const e = entry({ uid: 1, key: ['magical forest'], matchWholeWords: true });
    expect(activatedUids([e], said('the magical forestry guild'))).toEqual([1]);
  });

  it('treats every non-ASCII character as a boundary, so a CJK key matches inside CJK text', () => {
    const settings = { caseSensitive: false, matchWholeWords: true };
    expect(matchKey('我和沈念一起去后山', '沈念', settings)).toBe(true);
    expect(matchKey('我爱magic的味道', 'magic', settings)).toBe(true);
    expect(matchKey('abc沈念', '沈念', settings)).toBe(false);
    expect(matchKey('沈念2号', '沈念', settings)).toBe(false);
  });
});

describe('CJK keys of the Chinese card against Chinese text', () => {
  const book = extractCharacterBook(JSON.parse(readFixture('sillytavern/characters/爱.json')));
  const entries = book?.entries ?? [];
  const keyed = (uids: number[]) => uids.filter((uid) => !entries[uid]?.constant);

  it('activates the entries whose Chinese names appear, plus the enabled constants', () => {
    const messages = said('我和师妹一起回到了玄天宗。');
    const uids = activatedUids(entries, messages);
    expect(keyed(uids).sort((a, b) => a - b)).toEqual([2, 9, 15, 20]);
    expect(uids.filter((uid) => entries[uid]?.constant).sort((a, b) => a - b)).toEqual([
      0, 1, 21, 22, 24, 25, 26,
    ]);
    const shenNian = activateWorldInfo(entries, messages).activated.find((a) => a.uid === 9);
    expect(shenNian).toMatchObject({ name: '沈念_基础信息', matchedKey: '师妹', position: 1, order: 91 });
  });

  it('gives the same result with whole-word matching on', () => {
    const messages = said('鸾姐说：“合欢宗的人来了。”');
    expect(activatedUids(entries, messages, { matchWholeWords: true })).toEqual(
      activatedUids(entries, messages),
    );
    expect(keyed(activatedUids(entries, messages, { matchWholeWords: true })).sort((a, b) => a - b)).toEqual([
      3, 10, 16,
    ]);
  });
});

describe('scan depth', () => {
  const messages = said('the dragon sleeps', 'a quiet night', 'nothing happens');

  it('scans the 2 most recent messages by default', () => {
    expect(activatedUids([entry({ key: ['dragon'] })], messages)).toEqual([]);
  });

  it('scans deeper with the global option', () => {
    expect(activatedUids([entry({ uid: 1, key: ['dragon'] })], messages, { scanDepth: 3 })).toEqual([1]);
  });

  it('lets the entry scanDepth override the global one', () => {
    expect(activatedUids([entry({ uid: 1, key: ['dragon'], scanDepth: 3 })], messages)).toEqual([1]);
    expect(activatedUids([entry({ key: ['night'], scanDepth: 1 })], messages, { scanDepth: 5 })).toEqual([]);
  });

  it('scans nothing at depth 0, so only constants activate', () => {
    const entries = [entry({ uid: 1, key: ['nothing'] }), entry({ uid: 2, constant: true })];
    expect(activatedUids(entries, messages, { scanDepth: 0 })).toEqual([2]);
  });

  it('skips hidden (is_system) and non-standard messages, as ST does', () => {
    const hidden: ActivationMessage[] = [
      { name: 'User', text: 'the dragon' },
      { name: 'Narrator', text: 'silence', isSystem: true },
      { name: '', text: 'a description', nonStandard: true },
    ];
    expect(activatedUids([entry({ uid: 1, key: ['dragon'] })], hidden, { scanDepth: 1 })).toEqual([1]);
  });

  it('includes speaker names by default', () => {
    const named = [{ name: 'Seraphina', text: 'Welcome.' }];
    expect(activatedUids([entry({ uid: 1, key: ['seraphina'] })], named)).toEqual([1]);
    expect(activatedUids([entry({ key: ['seraphina'] })], named, { includeNames: false })).toEqual([]);
  });
});

describe('regex keys', () => {
  it('matches /pattern/flags keys', () => {
    const e = entry({ uid: 1, key: ['/shadow\\w+/i'] });
    expect(activatedUids([e], said('The Shadowfangs came.'))).toEqual([1]);
  });

  it('ignores the case-sensitivity setting: the regex flags decide', () => {
    const e = entry({ key: ['/shadow\\w+/'], caseSensitive: false });
    expect(activatedUids([e], said('The SHADOWFANGS came.'))).toEqual([]);
  });

  it('treats a malformed regex key as plain text', () => {
    expect(parseRegexKey('/a/b/')).toBeNull();
    expect(parseRegexKey('/(/')).toBeNull();
    expect(parseRegexKey('plain')).toBeNull();
    expect(parseRegexKey('/a\\/b/g')?.source).toBe('a\\/b');
    expect(activatedUids([entry({ uid: 1, key: ['/(/'] })], said('literally /(/ here'))).toEqual([1]);
  });
});

describe('order and budget', () => {
  const big = (uid: number, order: number, extra: Record<string, unknown> = {}) =>
    entry({ uid, key: ['dragon'], order, content: 'x'.repeat(10), ...extra });

  it('returns entries in prompt order: ascending order, ties in reverse source order', () => {
    const entries = [big(1, 50), big(2, 200), big(3, 100), big(4, 100)];
    expect(activatedUids(entries, said('dragon'))).toEqual([1, 4, 3, 2]);
  });

  it('keeps higher-order entries first when the budget runs out and stops at the first overflow', () => {
    const entries = [
      big(1, 10),
      big(2, 300),
      big(3, 200),
      entry({ uid: 4, key: ['dragon'], order: 1, content: 'x' }),
    ];
    const result = activateWorldInfo(entries, said('dragon'), { budget: 25 });
    expect(result.activated.map((a) => a.uid)).toEqual([3, 2]);
    expect(result.budget).toEqual({
      limit: 25,
      used: 20,
      overflowed: true,
      dropped: [
        { uid: 1, name: 'dragon', size: 10 },
        { uid: 4, name: 'dragon', size: 1 },
      ],
    });
  });

  it('always keeps constant entries and counts them first', () => {
    const entries = [big(1, 300), entry({ uid: 2, constant: true, order: 1, content: 'y'.repeat(20) })];
    const result = activateWorldInfo(entries, said('dragon'), { budget: 25 });
    expect(result.activated.map((a) => a.uid)).toEqual([2]);
    expect(result.budget).toMatchObject({ used: 20, overflowed: true });
  });

  it('lets ignoreBudget entries bypass the budget', () => {
    const entries = [big(1, 300), big(2, 200), big(3, 100, { ignoreBudget: true })];
    const result = activateWorldInfo(entries, said('dragon'), { budget: 20 });
    expect(result.activated.map((a) => a.uid)).toEqual([3, 1]);
    expect(result.budget).toMatchObject({ used: 20, dropped: [{ uid: 2 }] });
  });

  it('measures with a caller-supplied function, e.g. tokens', () => {
    const result = activateWorldInfo([big(1, 100), big(2, 100)], said('dragon'), {
      budget: 4,
      measure: (content) => Math.ceil(content.length / 4),
    });
    expect(result.activated.map((a) => [a.uid, a.size])).toEqual([[1, 3]]);
  });

  it('counts characters as code points by default', () => {
    const result = activateWorldInfo([entry({ constant: true, content: '沈念😀' })], []);
    expect(result.activated[0]?.size).toBe(3);
  });
});

describe('real data', () => {
  it('activates Eldoria entries from the Seraphina chat', () => {
    const book = parseWorldInfoJson(readFixture('sillytavern/worlds/Eldoria.modern.json'), 'Eldoria');
    const chat = parseChatJsonl(
      readFixture('sillytavern/chats/Seraphina - 2023-5-12 @21h 32m 29s 224ms.jsonl'),
    );
    const summary = (options?: ActivationOptions) =>
      activateWorldInfo(book.entries, chat.messages, options).activated.map((a) => [
        a.uid,
        a.name,
        a.matchedKey,
      ]);
    expect(summary()).toEqual([
      [3, 'power', 'magic'],
      [2, 'glade', 'glade'],
      [1, 'shadowfang', 'beast'],
    ]);
    // The greeting, two messages further back, is about the forest.
    expect(summary({ scanDepth: 3 })).toContainEqual([0, 'eldoria', 'forest']);
  });
});
