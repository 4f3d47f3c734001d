import { describe, expect, test } from 'vitest';
import { cutAt } from '../../src/core/unicode.js';
import { storableJson } from '../../src/db/jsonb.js';

describe('storableJson', () => {
  test('well-formed values are written exactly as JSON.stringify writes them', () => {
    const value = { text: '龙 😀 \\ud83d (an escaped backslash, not a surrogate)', n: [1, null, true] };
    expect(storableJson(value)).toBe(JSON.stringify(value));
  });

  test('lone surrogates and NUL become U+FFFD, in keys as well as values, and pairs stay', () => {
    expect(JSON.parse(storableJson({ 'k\udc00': ['a\ud83d', '\u0000', '😀'] }))).toEqual({
      'k\ufffd': ['a\ufffd', '\ufffd', '😀'],
    });
  });
});

describe('cutAt', () => {
  test('never ends in half a surrogate pair', () => {
    expect(cutAt('ab😀', 3)).toBe('ab');
    expect(cutAt('ab😀', 4)).toBe('ab😀');
    expect(cutAt('abc', 2)).toBe('ab');
  });
});
