import { describe, expect, test } from 'vitest';
import { initialJournal, journalReducer, resumeAfter } from '../../console/src/logic/journal.js';

const event = (seq: number) => ({ seq: String(seq), type: 'TOOL_CALL_REQUESTED' });
const reduce = (seqs: number[]) =>
  seqs.map(event).reduce(journalReducer, initialJournal<ReturnType<typeof event>>());

describe('the journal reducer', () => {
  test('appends events in the order they come', () => {
    expect(reduce([3, 7, 12]).events.map((e) => e.seq)).toEqual(['3', '7', '12']);
  });

  test('a replay that overlaps what is shown adds only the events after it', () => {
    expect(reduce([3, 7, 3, 7, 12]).events.map((e) => e.seq)).toEqual(['3', '7', '12']);
  });

  test('compares positions as numbers, not as text', () => {
    expect(reduce([9, 10, 9]).events.map((e) => e.seq)).toEqual(['9', '10']);
  });

  test('compares positions beyond 2^53 exactly', () => {
    const big = [
      { seq: '9007199254740993', type: 'X' },
      { seq: '9007199254740992', type: 'X' },
      { seq: '9007199254740994', type: 'X' },
    ];
    expect(big.reduce(journalReducer, initialJournal()).events.map((e) => e.seq)).toEqual([
      '9007199254740993',
      '9007199254740994',
    ]);
  });

  test('resumes after the last event shown', () => {
    expect(resumeAfter(reduce([3, 7]))).toBe('7');
  });

  test('starts from the beginning when nothing is shown', () => {
    expect(resumeAfter(initialJournal())).toBe('0');
  });
});
