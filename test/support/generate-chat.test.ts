import { describe, expect, it } from 'vitest';
import { parseChatJsonl } from '../../src/features/chat/rules/jsonl.js';
import { generateChatJsonl, PLANTED_TERMS, plantedMessageIndices } from './generate-chat.js';

const take = (count: number, lines: Iterable<string>) => {
  const taken: string[] = [];
  for (const line of lines) {
    if (taken.length === count) break;
    taken.push(line);
  }
  return taken;
};

const MESSAGES = 5_000;
const chat = parseChatJsonl(`${[...generateChatJsonl({ messages: MESSAGES })].join('\n')}\n`);

describe('generateChatJsonl', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    const a = [...generateChatJsonl({ messages: 300, seed: 7 })];
    expect([...generateChatJsonl({ messages: 300, seed: 7 })]).toEqual(a);
    expect([...generateChatJsonl({ messages: 300, seed: 8 })]).not.toEqual(a);
  });

  it('yields lazily, so a huge chat can be streamed', () => {
    const lines = take(3, generateChatJsonl({ messages: 1_000_000_000 }));
    expect(lines).toHaveLength(3);
  });

  it('writes a modern SillyTavern chat that the parser reads', () => {
    expect(chat.header.shape).toBe('modern');
    expect(chat.header.characterName).toBe('沈念');
    expect(chat.messages).toHaveLength(MESSAGES);
    expect(chat.messages.every((m) => m.sendDateIso !== null && m.sendDateIso === m.sendDate)).toBe(true);
    const dates = chat.messages.map((m) => m.sendDateIso ?? '');
    expect([...dates].sort()).toEqual(dates);
  });

  it('starts with the character greeting and mostly alternates user and assistant', () => {
    expect(chat.messages[0]?.role).toBe('assistant');
    const turns = chat.messages.filter((m) => m.role !== 'system');
    const alternations = turns.slice(1).filter((m, i) => m.role !== turns[i]?.role).length;
    expect(alternations / turns.length).toBeGreaterThan(0.9);
    const roles = new Set(chat.messages.map((m) => m.role));
    expect(roles).toEqual(new Set(['assistant', 'user', 'system']));
  });

  it('mixes Chinese, English and mixed-language messages', () => {
    const han = /\p{Script=Han}/u;
    const latin = /[A-Za-z]{3}/;
    const zh = chat.messages.filter((m) => han.test(m.text) && !latin.test(m.text)).length;
    const en = chat.messages.filter((m) => !han.test(m.text) && latin.test(m.text)).length;
    const mixed = chat.messages.filter((m) => han.test(m.text) && latin.test(m.text)).length;
    for (const share of [zh, en, mixed]) expect(share / MESSAGES).toBeGreaterThan(0.1);
  });

  it('adds swipes whose chosen swipe is the shown text', () => {
    const swiped = chat.messages.filter((m) => Array.isArray(m.raw.swipes));
    expect(swiped.length).toBeGreaterThan(50);
    for (const m of swiped) {
      const swipes = m.raw.swipes as string[];
      expect(swipes[m.raw.swipe_id as number]).toBe(m.text);
      expect(m.raw.swipe_info).toHaveLength(swipes.length);
    }
  });

  it.each(PLANTED_TERMS.map((planted) => [planted.term]))(
    'plants %s in exactly the announced messages',
    (term) => {
      const expected = plantedMessageIndices(term, MESSAGES);
      expect(expected.length).toBeGreaterThan(0);
      const found = chat.messages
        .filter((m) => m.text.toLowerCase().includes(term.toLowerCase()))
        .map((m) => m.index);
      expect(found).toEqual(expected);
    },
  );

  it('announces planted indices across a million messages', () => {
    expect(plantedMessageIndices('饕餮', 1_000_000)).toHaveLength(20);
    expect(plantedMessageIndices('zephyrquill', 1_000_000)).toEqual([
      4_242, 204_242, 404_242, 604_242, 804_242,
    ]);
    expect(plantedMessageIndices('unknown', 1_000_000)).toEqual([]);
  });
});
