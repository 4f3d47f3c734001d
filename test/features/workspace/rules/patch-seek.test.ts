import { describe, expect, it } from 'vitest';
import { foldPunctuation, seekSequence } from '../../../../src/features/workspace/rules/patch/seek.js';

describe('seekSequence', () => {
  it.each([
    ['exact', ['a', 'b', 'c'], ['b', 'c'], { index: 1, level: 'exact' }],
    ['trailing whitespace in the file', ['foo   ', 'bar\t'], ['foo', 'bar'], { index: 0, level: 'trim_end' }],
    ['trailing whitespace in the patch', ['foo', 'bar'], ['foo ', 'bar  '], { index: 0, level: 'trim_end' }],
    ['CRLF file lines', ['one\r', 'two\r'], ['one', 'two'], { index: 0, level: 'trim_end' }],
    ['different indentation', ['    foo', '\tbar'], ['foo', '  bar'], { index: 0, level: 'trim' }],
    ['en dash for hyphen', ['a \u2013 b'], ['a - b'], { index: 0, level: 'fold' }],
    ['em dash and minus sign', ['x\u2014y\u2212z'], ['x-y-z'], { index: 0, level: 'fold' }],
    ['curly quotes', ['say \u201Chi\u201D, it\u2019s'], ['say "hi", it\'s'], { index: 0, level: 'fold' }],
    [
      'ASCII in the file, typographic in the patch',
      ['"quoted" - text'],
      ['\u201Cquoted\u201D \u2014 text'],
      { index: 0, level: 'fold' },
    ],
    ['non-breaking and narrow spaces', ['a\u00A0b\u202Fc'], ['a b c'], { index: 0, level: 'fold' }],
    ['ideographic space', ['a\u3000b'], ['a b'], { index: 0, level: 'fold' }],
    ['decomposed file text', ['cafe\u0301'], ['caf\u00e9'], { index: 0, level: 'fold' }],
  ] as const)('matches %s', (_, lines, pattern, expected) => {
    expect(seekSequence(lines, pattern, 0, false)).toEqual(expected);
  });

  it.each([
    ['a different word', ['alpha', 'beta'], ['gamma']],
    ['a partial sequence', ['a', 'b', 'x'], ['a', 'b', 'c']],
    ['a pattern longer than the file', ['one'], ['one', 'two']],
    ['a look-alike that is not folded', ['a\u2215b'], ['a/b']],
    ['different inner whitespace', ['a  b'], ['a b']],
  ] as const)('does not match %s', (_, lines, pattern) => {
    expect(seekSequence(lines, pattern, 0, false)).toBeNull();
  });

  it('prefers an exact match further down over a fuzzy one earlier', () => {
    expect(seekSequence(['foo  ', 'foo'], ['foo'], 0, false)).toEqual({ index: 1, level: 'exact' });
    expect(seekSequence(['  foo', 'foo '], ['foo'], 0, false)).toEqual({ index: 1, level: 'trim_end' });
  });

  it('searches from start onwards only', () => {
    const lines = ['x', 'y', 'x', 'y'];
    expect(seekSequence(lines, ['x'], 0, false)).toEqual({ index: 0, level: 'exact' });
    expect(seekSequence(lines, ['x'], 1, false)).toEqual({ index: 2, level: 'exact' });
    expect(seekSequence(lines, ['x'], 3, false)).toBeNull();
  });

  it('with endOfFile only matches at the end of the file', () => {
    const lines = ['x', 'y', 'x', 'y'];
    expect(seekSequence(lines, ['x', 'y'], 0, true)).toEqual({ index: 2, level: 'exact' });
    expect(seekSequence(lines, ['x'], 0, true)).toBeNull();
    expect(seekSequence(lines, ['y  '], 0, true)).toEqual({ index: 3, level: 'trim_end' });
  });

  it('matches an empty pattern where the search starts', () => {
    expect(seekSequence(['a', 'b'], [], 1, false)).toEqual({ index: 1, level: 'exact' });
  });
});

describe('foldPunctuation', () => {
  it('folds dashes, quotes and spaces to ASCII and composes to NFC', () => {
    expect(foldPunctuation('\u2010\u2011\u2012\u2013\u2014\u2015\u2212')).toBe('-------');
    expect(foldPunctuation('\u2018\u2019\u201A\u201B\u201C\u201D\u201E\u201F')).toBe('\'\'\'\'""""');
    expect(foldPunctuation('\u00A0\u2002\u2009\u200A\u205F\u3000')).toBe('      ');
    expect(foldPunctuation('e\u0301')).toBe('\u00e9');
    expect(foldPunctuation('plain ASCII - "text"')).toBe('plain ASCII - "text"');
  });
});
