import { describe, expect, test } from 'vitest';
import {
  cjkBigrams,
  escapeLike,
  estimateMatchFraction,
  planChatSearch,
  splitTerms,
} from '../../../../src/features/chat/rules/search.js';

describe('cjkBigrams', () => {
  test('gives every two-character window of each CJK run, once, in order', () => {
    expect(cjkBigrams('他忽然提起了饕餮')).toEqual(['他忽', '忽然', '然提', '提起', '起了', '了饕', '饕餮']);
  });

  test('does not join windows across non-CJK text', () => {
    expect(cjkBigrams('师兄OK师妹')).toEqual(['师兄', '师妹']);
  });

  test('gives nothing for a single CJK character or Latin text', () => {
    expect(cjkBigrams('我 love tea')).toEqual([]);
  });

  test('covers kana, hangul and ideographs outside the BMP', () => {
    expect(cjkBigrams('カタカナ 한국 𠀀𠀁')).toEqual(['カタ', 'タカ', 'カナ', '한국', '𠀀𠀁']);
  });

  test('repeats a window only once', () => {
    expect(cjkBigrams('哈哈哈')).toEqual(['哈哈']);
  });
});

describe('splitTerms', () => {
  test('splits on any whitespace and drops repeats', () => {
    expect(splitTerms('  silver\tkey\nsilver 　饕餮 ')).toEqual(['silver', 'key', '饕餮']);
  });
});

describe('escapeLike', () => {
  test('escapes the LIKE wildcards and the escape character', () => {
    expect(escapeLike('50%_off\\now')).toBe('50\\%\\_off\\\\now');
  });
});

describe('planChatSearch', () => {
  test('a two-character Chinese term is one bigram and a substring pattern', () => {
    const plan = planChatSearch('饕餮');
    expect(plan).toEqual({
      terms: [{ text: '饕餮', pattern: '%饕餮%', bigrams: ['饕餮'], latinPatterns: [], latinOnly: false }],
      bigramQuery: "'饕餮'",
      indexed: true,
    });
  });

  test('a longer Chinese term ANDs all its bigrams', () => {
    expect(planChatSearch('獬豸衔烛').bigramQuery).toBe("'獬豸' & '豸衔' & '衔烛'");
  });

  test('a Latin term uses the trigram index and counts for whole-word ranking', () => {
    expect(planChatSearch('Zephyr').terms).toEqual([
      { text: 'Zephyr', pattern: '%Zephyr%', bigrams: [], latinPatterns: ['%Zephyr%'], latinOnly: true },
    ]);
  });

  test('a mixed term indexes its CJK bigrams and its Latin part', () => {
    const [term] = planChatSearch('plan饕餮').terms;
    expect(term).toMatchObject({ bigrams: ['饕餮'], latinPatterns: ['%plan%'], latinOnly: false });
  });

  test('terms too short for any index still match by substring, unindexed', () => {
    const plan = planChatSearch('OK 我');
    expect(plan.indexed).toBe(false);
    expect(plan.bigramQuery).toBeNull();
    expect(plan.terms.map((term) => term.pattern)).toEqual(['%OK%', '%我%']);
  });

  test('one indexed term is enough to index the query', () => {
    expect(planChatSearch('OK library').indexed).toBe(true);
  });
});

describe('estimateMatchFraction', () => {
  const stats = new Map([
    ['藏经', 0.06],
    ['经阁', 0.05],
    ['lantern', 0.04],
    ['the', 0.5],
  ]);
  const frequency = (lexeme: string) => stats.get(lexeme);

  test('a CJK term matches no more often than its rarest bigram', () => {
    expect(estimateMatchFraction(planChatSearch('藏经阁'), frequency)).toBe(0.05);
  });

  test('a Latin word counts as often as the word, whatever its case', () => {
    expect(estimateMatchFraction(planChatSearch('Lantern'), frequency)).toBe(0.04);
  });

  test('all terms must match, so the rarest term decides', () => {
    expect(estimateMatchFraction(planChatSearch('the lantern'), frequency)).toBe(0.04);
  });

  test('a lexeme the statistics do not list counts as rare', () => {
    expect(estimateMatchFraction(planChatSearch('饕餮'), frequency)).toBe(0);
  });

  test('terms without lexemes say nothing', () => {
    expect(estimateMatchFraction(planChatSearch('a.b 剑'), frequency)).toBe(1);
  });
});
