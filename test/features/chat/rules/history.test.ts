import { describe, expect, test } from 'vitest';
import { RecoverableToolError } from '../../../../src/core/tool-errors.js';
import {
  decodeHistoryCursor,
  encodeHistoryCursor,
  planHistoryPage,
} from '../../../../src/features/chat/rules/history.js';

const messages = (...chars: number[]) => chars.map((c, i) => ({ index: chars.length - 1 - i, chars: c }));

describe('planHistoryPage', () => {
  test('takes whole messages newest first while they fit and returns them oldest first', () => {
    // Indices 4..0 with these lengths, newest first.
    expect(planHistoryPage(messages(10, 20, 30, 40, 50), 60, 10)).toEqual({
      slices: [
        { index: 2, start: 0, end: 30 },
        { index: 3, start: 0, end: 20 },
        { index: 4, start: 0, end: 10 },
      ],
      next: { index: 2, end: null },
    });
  });

  test('stops at the limit', () => {
    expect(planHistoryPage(messages(1, 1, 1), 100, 2)).toEqual({
      slices: [
        { index: 1, start: 0, end: 1 },
        { index: 2, start: 0, end: 1 },
      ],
      next: { index: 1, end: null },
    });
  });

  test('cuts a message longer than the whole budget to its last characters and continues inside it', () => {
    expect(planHistoryPage(messages(500, 5), 100, 10)).toEqual({
      slices: [{ index: 1, start: 400, end: 500 }],
      next: { index: 1, end: 400 },
    });
  });

  test('does not cut a message that only misses the remainder of the budget', () => {
    expect(planHistoryPage(messages(50, 80), 100, 10)).toEqual({
      slices: [{ index: 1, start: 0, end: 50 }],
      next: { index: 1, end: null },
    });
  });

  test('has no next page once message 0 is shown whole', () => {
    expect(planHistoryPage(messages(5, 5), 100, 10).next).toBeNull();
  });

  test('an empty chat gives an empty page', () => {
    expect(planHistoryPage([], 100, 10)).toEqual({ slices: [], next: null });
  });
});

describe('history cursors', () => {
  test('round-trip a position with and without a cut', () => {
    expect(decodeHistoryCursor(encodeHistoryCursor('c1', { index: 7, end: null }), 'c1')).toEqual({
      index: 7,
      end: null,
    });
    expect(decodeHistoryCursor(encodeHistoryCursor('c1', { index: 7, end: 12 }), 'c1')).toEqual({
      index: 7,
      end: 12,
    });
  });

  test('refuse a cursor of another chat with a recoverable error', () => {
    const cursor = encodeHistoryCursor('c1', { index: 7, end: null });
    expect(() => decodeHistoryCursor(cursor, 'c2')).toThrow(RecoverableToolError);
    expect(() => decodeHistoryCursor(cursor, 'c2')).toThrow(/belongs to another chat/);
  });

  test.for([
    'garbage',
    Buffer.from('{"v":1,"chat":"c1","i":-1}').toString('base64url'),
    Buffer.from('[1]').toString('base64url'),
  ])('refuse a malformed cursor %s', (cursor) => {
    expect(() => decodeHistoryCursor(cursor, 'c1')).toThrow(/not one this tool returned/);
  });
});
