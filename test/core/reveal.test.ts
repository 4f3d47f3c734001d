import { describe, expect, it } from 'vitest';
import { lookalikes, revealParts, revealText, revealWarnings } from '../../src/core/reveal.js';

describe('revealParts', () => {
  it('cuts out each invisible or bidi character, named, and leaves newlines and tabs as text', () => {
    expect(revealParts('rm a\u202Etxt.exe\nnext\tcol')).toEqual([
      { text: 'rm a' },
      { text: '\u202E', hidden: 'U+202E', title: 'U+202E RIGHT-TO-LEFT OVERRIDE', bidi: true },
      { text: 'txt.exe\nnext\tcol' },
    ]);
  });

  it.each([
    ['soft hyphen', 'out\u00ADput', 'U+00AD'],
    ['zero width space', 'a\u200Bb', 'U+200B'],
    ['zero width joiner', 'a\u200Db', 'U+200D'],
    ['word joiner', 'a\u2060b', 'U+2060'],
    ['BOM', '\uFEFFa', 'U+FEFF'],
    ['variation selector', 'a\uFE0Fb', 'U+FE0F'],
    ['supplementary variation selector', 'a\u{E0100}b', 'U+E0100'],
    ['tag character', 'a\u{E0041}b', 'U+E0041'],
    ['Hangul filler', 'a\u3164b', 'U+3164'],
    ['no-break space', 'a\u00A0b', 'U+00A0'],
    ['ideographic space', 'a\u3000b', 'U+3000'],
    ['escape control', 'a\u001Bb', 'U+001B'],
    ['line separator', 'a\u2028b', 'U+2028'],
    ['isolate', 'a\u2067b', 'U+2067'],
  ])('marks a %s', (_, text, hidden) => {
    expect(
      revealParts(text)
        .filter((p) => p.hidden)
        .map((p) => p.hidden),
    ).toEqual([hidden]);
  });

  it('leaves plain text, accents, CJK and emoji whole', () => {
    for (const text of ['output/report.md', 'résumé', '日本語の文書', 'ok 👍🏽', ''])
      expect(revealParts(text).every((p) => p.hidden === undefined)).toBe(true);
  });
});

describe('revealText', () => {
  it('writes hidden characters as their code points, for plain-text places', () => {
    expect(revealText('pay\u200B pal \u202Efdp.exe')).toBe('pay⟦U+200B⟧ pal ⟦U+202E⟧fdp.exe');
  });
});

describe('lookalikes', () => {
  it('flags a word mixing Latin and Cyrillic letters', () => {
    expect(lookalikes('please d\u0435lete the draft')).toEqual([
      { word: 'd\u0435lete', scripts: ['Latin', 'Cyrillic'] },
    ]);
  });

  it('flags a word mixing Latin and Greek letters', () => {
    expect(lookalikes('rm -rf /h\u03BFme')).toEqual([{ word: 'h\u03BFme', scripts: ['Latin', 'Greek'] }]);
  });

  it('flags a Cyrillic word that passes for Latin next to Latin words', () => {
    expect(lookalikes('send to \u0440\u0430\u0443 account')).toEqual([
      { word: '\u0440\u0430\u0443', scripts: ['Cyrillic'] },
    ]);
  });

  it('flags fullwidth letters', () => {
    expect(lookalikes('\uFF44\uFF45\uFF4C\uFF45\uFF54\uFF45 it')).toEqual([
      { word: '\uFF44\uFF45\uFF4C\uFF45\uFF54\uFF45', scripts: ['Latin', 'compatibility forms'] },
    ]);
  });

  it('leaves real Russian, Greek, Japanese and accented Latin text alone', () => {
    expect(lookalikes('Привет, мир')).toEqual([]);
    expect(lookalikes('Καλημέρα κόσμε')).toEqual([]);
    expect(lookalikes('日本語のファイルを読む')).toEqual([]);
    expect(lookalikes('naïve café, 10 m² and Привет')).toEqual([]);
  });
});

describe('revealWarnings', () => {
  it('says what is hidden and which words mix scripts', () => {
    expect(revealWarnings('d\u0435lete a\u202Eb')).toEqual([
      '"d\u0435lete" mixes Latin and Cyrillic letters that look alike',
      'holds U+202E RIGHT-TO-LEFT OVERRIDE, which reorders the text after it',
    ]);
    expect(revealWarnings('plain text')).toEqual([]);
  });
});
