import { describe, expect, test } from 'vitest';
import { keepSelection, moveSelection } from '../../console/src/logic/selection.js';

describe('keyboard selection', () => {
  test('j with nothing selected selects the first card', () => {
    expect(moveSelection(['a', 'b'], null, 1)).toBe('a');
  });

  test('k with nothing selected selects the last card', () => {
    expect(moveSelection(['a', 'b'], null, -1)).toBe('b');
  });

  test('j and k move by one and stop at the ends', () => {
    expect([
      moveSelection(['a', 'b'], 'a', 1),
      moveSelection(['a', 'b'], 'b', 1),
      moveSelection(['a', 'b'], 'a', -1),
    ]).toEqual(['b', 'b', 'a']);
  });

  test('an empty queue selects nothing', () => {
    expect(moveSelection([], 'a', 1)).toBeNull();
  });

  test('the selection follows its card when another enters above it', () => {
    expect(keepSelection(['b', 'c'], ['a', 'b', 'c'], 'c')).toBe('c');
  });

  test('when the selected card leaves, the one now in its place is selected', () => {
    expect(keepSelection(['a', 'b', 'c'], ['a', 'c'], 'b')).toBe('c');
  });

  test('when the last card leaves, the new last one is selected', () => {
    expect(keepSelection(['a', 'b'], ['a'], 'b')).toBe('a');
  });
});
