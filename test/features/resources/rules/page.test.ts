import { describe, expect, test } from 'vitest';
import { pageOf } from '../../../../src/features/resources/rules/page.js';

describe('pageOf', () => {
  test('a page from the start, with where the next begins', () => {
    expect(pageOf('abcdef', 0, 4)).toEqual({ text: 'abcd', start: 0, end: 4, totalChars: 6, nextOffset: 4 });
  });

  test('the last page has no next offset', () => {
    expect(pageOf('abcdef', 4, 10)).toEqual({
      text: 'ef',
      start: 4,
      end: 6,
      totalChars: 6,
      nextOffset: null,
    });
  });

  test('an offset at or past the end names nothing; an empty text has one empty page', () => {
    expect([pageOf('abc', 3, 1), pageOf('abc', 9, 1)]).toEqual([null, null]);
    expect(pageOf('', 0, 5)).toEqual({ text: '', start: 0, end: 0, totalChars: 0, nextOffset: null });
  });

  test('never splits a surrogate pair at either end', () => {
    const text = 'a😀b';
    expect(pageOf(text, 0, 2)).toMatchObject({ text: 'a', end: 1, nextOffset: 1 });
    expect(pageOf(text, 2, 5)).toMatchObject({ text: '😀b', start: 1 });
    expect(pageOf(text, 1, 1)).toMatchObject({ text: '😀', start: 1, end: 3, nextOffset: 3 });
  });
});
