import { describe, expect, test } from 'vitest';
import { countTokens, lastTokens, truncateToTokens } from '../../src/core/tokens.js';

describe('token counting (o200k)', () => {
  test('ordinary text is counted by the tokenizer', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
  });

  test('a long run without whitespace is counted slice by slice, close to a whole encode', () => {
    const base64 = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 37) % 256)).toString('base64');
    const sliced = countTokens(base64);
    let whole = 0;
    for (let at = 0; at < base64.length; at += 256) whole += countTokens(base64.slice(at, at + 256));
    expect(sliced).toBe(whole);
    expect(base64.length).toBeGreaterThan(256);
  });

  test('slices never split a surrogate pair, so cut text keeps whole characters', () => {
    const emoji = '😀'.repeat(400);
    const head = truncateToTokens(emoji, 50);
    const tail = lastTokens(emoji, 50);
    for (const text of [head, tail]) {
      expect(text.length).toBeGreaterThan(0);
      expect(text.replace(/😀/g, '')).toBe('');
    }
  });

  test('special-token text such as <|endoftext|> is counted and cut as ordinary text', () => {
    const text = 'before <|endoftext|> after';
    expect(countTokens(text)).toBeGreaterThan(3);
    expect(truncateToTokens(text, 100)).toBe(text);
    expect(lastTokens(text, 100)).toBe(text);
  });
});
