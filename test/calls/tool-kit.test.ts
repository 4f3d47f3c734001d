import { describe, expect, test } from 'vitest';
import { textParts } from '../../src/calls/tool-kit.js';

const joined = (parts: ReturnType<typeof textParts>) =>
  parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n');

describe('textParts', () => {
  test('keeps short text as one part', () => {
    expect(textParts('a\nb')).toEqual([{ type: 'text', text: 'a\nb' }]);
  });

  test('cuts long text after whole lines so that joining with newlines restores it', () => {
    const text = Array.from({ length: 3000 }, (_, i) => `第${i}行：饕餮的传说 line ${i}`).join('\n');
    const parts = textParts(text);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts)
      expect(Buffer.byteLength((part as { text: string }).text)).toBeLessThanOrEqual(15_000);
    expect(joined(parts)).toBe(text);
  });

  test('cuts a single line longer than a part at character boundaries', () => {
    const parts = textParts('饕'.repeat(6000));
    expect(parts).toHaveLength(2);
    expect(parts.map((p) => (p as { text: string }).text.length)).toEqual([5000, 1000]);
  });
});
