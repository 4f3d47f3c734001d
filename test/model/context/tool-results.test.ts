import { describe, expect, test } from 'vitest';
import { countTokens, lastTokens, truncateToTokens } from '../../../src/core/tokens.js';
import { entriesTokens, renderEntries } from '../../../src/model/context/tool-results.js';
import type { ToolResultEntry } from '../../../src/model/context/types.js';

const entry = (i: number, text: string, omitted = false): ToolResultEntry => ({
  callId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  providerCallId: i % 2 ? `call_${i}` : null,
  name: 'workspace.read_file',
  status: 'COMPLETED',
  form: 'RAW',
  text,
  isError: false,
  truncated: omitted,
  omitted,
});

/** A deterministic generator (mulberry32), so a failure names a case that can be replayed. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Pieces chosen for the tokenizer's pre-split edges: brackets, slashes and braces next to line
// breaks, runs of spaces, digits, CJK, an emoji (a surrogate pair) and a long run without spaces.
const PIECES = [
  '[',
  ']',
  '/',
  '}',
  '{"a":1}',
  '\n',
  '\n\n',
  '   ',
  ' ',
  'word',
  'Word',
  "it's",
  '123456',
  '龙在睡',
  '。',
  '😀',
  '\t',
  'x'.repeat(300),
  '-->',
  '[link](/path)',
  '\r\n',
];

describe('tool result blocks are counted one by one', () => {
  test('the sum over blocks equals the count of the rendered component, on hostile texts', () => {
    const next = random(7);
    for (let round = 0; round < 300; round++) {
      const entries = Array.from({ length: 1 + Math.floor(next() * 5) }, (_, i) => {
        let text = '';
        for (let k = Math.floor(next() * 12); k > 0; k--) text += PIECES[Math.floor(next() * PIECES.length)];
        return entry(i, text, next() < 0.2);
      });
      expect(entriesTokens(entries), JSON.stringify(entries.map((e) => [e.text, e.omitted]))).toBe(
        countTokens(renderEntries(entries)),
      );
    }
  });

  test('no entries, only omitted entries, and one entry are counted exactly', () => {
    for (const entries of [[], [entry(0, 'a', true), entry(1, 'b', true)], [entry(0, '{"ok":true}')]])
      expect(entriesTokens(entries)).toBe(countTokens(renderEntries(entries)));
  });
});

describe('cutting a long text encodes only a window', () => {
  const long = `${'The caravan reached the crossing. 商队抵达渡口。😀 '.repeat(5_000)}end`;

  test('the head is a prefix of the text within the budget', () => {
    const head = truncateToTokens(long, 50);
    expect(long.startsWith(head)).toBe(true);
    expect(countTokens(head)).toBeLessThanOrEqual(50);
    expect(countTokens(head)).toBeGreaterThanOrEqual(48);
  });

  test('the tail is a suffix of the text within the budget', () => {
    const tail = lastTokens(long, 50);
    expect(long.endsWith(tail)).toBe(true);
    expect(countTokens(tail)).toBeLessThanOrEqual(50);
    expect(countTokens(tail)).toBeGreaterThanOrEqual(48);
  });

  test('a text of few tokens in many characters widens the window until it holds enough', () => {
    const spaces = `${' '.repeat(20_000)}x`;
    const firstWindow = 3 * 8 + 64;
    const head = truncateToTokens(spaces, 3);
    expect(spaces.startsWith(head)).toBe(true);
    expect(head.length).toBeGreaterThan(firstWindow);
    expect(countTokens(head)).toBe(3);
    const tail = lastTokens(`x${' '.repeat(20_000)}`, 3);
    expect(tail.length).toBeGreaterThan(firstWindow);
    expect(countTokens(tail)).toBe(3);
    expect(truncateToTokens('short', 10)).toBe('short');
    expect(lastTokens('short', 10)).toBe('short');
    expect(truncateToTokens(long, 0)).toBe('');
  });
});
