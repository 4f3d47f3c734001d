import { describe, expect, test } from 'vitest';
import { countTokens } from '../../../src/core/tokens.js';
import type { ToolResult } from '../../../src/core/tool-result.js';
import { summarizeResult } from '../../../src/model/context/summary.js';

const words = (n: number, prefix = 'w') => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');

const result = (text: string, extra: Partial<ToolResult> = {}): ToolResult => ({
  callId: 'c1',
  content: [{ type: 'text', text }],
  structured: null,
  isError: false,
  resourceRefs: [],
  usage: null,
  ...extra,
});

const summary = (r: ToolResult) => summarizeResult(r, (r.content[0] as { text: string }).text);

describe('summarizeResult', () => {
  test('a short result is its own summary', () => {
    expect(summary(result('3 files match.'))).toBe('3 files match.');
  });

  test("the tool's own summary from its structured output, with the size and the resources", () => {
    const raw = `Search "key" in chat c: 12 messages match; best 10 first.\n${words(300)}`;
    const uri = `resource://sha256/${'a'.repeat(64)}`;
    expect(
      summary(
        result(raw, {
          structured: { summary: '12 messages mention the key; the newest is #88.', hits: [] },
          resourceRefs: [uri],
        }),
      ),
    ).toBe(
      `12 messages mention the key; the newest is #88.\n[summary by the tool; the full result has ${countTokens(raw)} tokens; full output: ${uri}]`,
    );
  });

  test('otherwise a digest: the first two lines, the size in lines, field names with list lengths', () => {
    const raw = [`first ${words(80, 'a')}`, 'second line', '', 'third line', words(100, 'z')].join('\n');
    const text = summary(
      result(raw, { structured: { chatId: 'c', terms: ['key'], matched: 12, hits: [1, 2, 3] } }),
    );
    const [first, second, note] = text.split('\n');
    expect(first).toMatch(/^first a0 a1 .*…$/);
    expect(countTokens(first!)).toBeLessThanOrEqual(41);
    expect(second).toBe('second line');
    expect(note).toBe(
      `[summary: the full result has ${countTokens(raw)} tokens in 4 lines; fields: chatId, terms (1), matched, hits (3)]`,
    );
  });

  test('many fields and resources are counted, not all listed', () => {
    const structured = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`f${i}`, i]));
    const refs = Array.from({ length: 5 }, (_, i) => `resource://sha256/${String(i).repeat(64)}`);
    const text = summary(result(words(200), { structured, resourceRefs: refs }));
    expect(text).toContain('fields: f0, f1, f2, f3, f4, f5, f6, f7 and 3 more');
    expect(text).toContain(`full output: ${refs.slice(0, 3).join(', ')} and 2 more]`);
  });

  test('an empty or non-string summary falls back to the digest', () => {
    expect(summary(result(words(200), { structured: { summary: '  ' } }))).toMatch(
      /\n\[summary: .*fields: summary\]$/,
    );
    expect(summary(result(words(200), { structured: { summary: 7 } }))).toMatch(/^\S+ .*\n\[summary: /);
  });

  test('stays short however long the result', () => {
    expect(countTokens(summary(result(words(20_000))))).toBeLessThan(110);
  });
});
