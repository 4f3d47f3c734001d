import { describe, expect, it } from 'vitest';
import {
  countLines,
  type ReadBudget,
  type ReadSelection,
  selectRange,
} from '../../../../src/features/workspace/rules/read-range.js';

const wide: ReadBudget = { maxBytes: 1_000_000, maxTokens: null };

function select(
  text: string,
  range: Parameters<typeof selectRange>[1],
  budget: ReadBudget = wide,
): ReadSelection {
  const outcome = selectRange(text, range, budget);
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.selection;
}

function rejected(text: string, range: Parameters<typeof selectRange>[1]): string {
  const outcome = selectRange(text, range, wide);
  if (outcome.ok) throw new Error('expected the range to be rejected');
  return outcome.message;
}

describe('countLines', () => {
  it('counts a last line without a newline, and no line for an empty text', () => {
    expect([
      countLines(''),
      countLines('a'),
      countLines('a\n'),
      countLines('a\nb'),
      countLines('\n\n'),
    ]).toEqual([0, 1, 1, 2, 2]);
  });
});

describe('selectRange', () => {
  const text = 'one\ntwo\nthree\nfour\n';

  it('returns the whole file by default', () => {
    expect(select(text, {})).toEqual({
      content: text,
      startLine: 1,
      endLine: 4,
      startChar: 0,
      endChar: 19,
      totalLines: 4,
      totalChars: 19,
      truncated: false,
      next: null,
    });
  });

  it('returns a line range, clamping an end past the last line', () => {
    expect(select(text, { startLine: 2, endLine: 3 })).toMatchObject({
      content: 'two\nthree\n',
      startChar: 4,
      endChar: 14,
    });
    expect(select(text, { startLine: 4, endLine: 99 })).toMatchObject({
      content: 'four\n',
      startLine: 4,
      endLine: 4,
    });
  });

  it('returns a character range in code points', () => {
    expect(select('a😀b😀c', { startChar: 1, endChar: 4 })).toMatchObject({
      content: '😀b😀',
      startChar: 1,
      endChar: 4,
      totalChars: 5,
    });
  });

  it('cuts a line range at the last whole line within the byte budget', () => {
    expect(select(text, {}, { maxBytes: 10, maxTokens: null })).toMatchObject({
      content: 'one\ntwo\n',
      endLine: 2,
      truncated: true,
      next: { startLine: 3 },
    });
  });

  it('cuts inside a line when not even one line fits, never inside a character', () => {
    expect(select('ééééé\n', {}, { maxBytes: 5, maxTokens: null })).toMatchObject({
      content: 'éé',
      truncated: true,
      next: { startChar: 2 },
    });
  });

  it('cuts a character range by characters', () => {
    expect(select(text, { startChar: 2 }, { maxBytes: 4, maxTokens: null })).toMatchObject({
      content: 'e\ntw',
      startChar: 2,
      endChar: 6,
      next: { startChar: 6 },
    });
  });

  it('keeps to a token budget', () => {
    const words = Array.from({ length: 50 }, (_, i) => `w${i}`).join('\n');
    const cut = select(words, {}, { maxBytes: 1_000_000, maxTokens: 10 });
    expect(cut.truncated).toBe(true);
    expect(cut.content.endsWith('\n')).toBe(true);
    expect(cut.next).toEqual({ startLine: cut.endLine + 1 });
  });

  it('reads an empty file as empty', () => {
    expect(select('', {})).toMatchObject({
      content: '',
      startLine: 0,
      endLine: 0,
      totalLines: 0,
      next: null,
    });
  });

  it('rejects mixed, reversed and out-of-range requests', () => {
    expect(rejected(text, { startLine: 1, endChar: 2 })).toBe(
      'give either startLine/endLine or startChar/endChar, not both',
    );
    expect(rejected(text, { startLine: 3, endLine: 2 })).toBe(
      'endLine (2) must not be less than startLine (3)',
    );
    expect(rejected(text, { startLine: 5 })).toBe(
      'startLine 5 is past the end of the file, which has 4 lines',
    );
    expect(rejected(text, { startChar: 5, endChar: 5 })).toBe(
      'endChar (5) must be greater than startChar (5)',
    );
    expect(rejected(text, { startChar: 19 })).toBe(
      'startChar 19 is past the end of the file, which has 19 characters',
    );
  });
});
