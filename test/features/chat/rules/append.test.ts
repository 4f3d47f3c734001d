import { describe, expect, test } from 'vitest';
import { appendedMessageProblem, firstAppendProblem } from '../../../../src/features/chat/rules/append.js';

const ok = { name: 'Traveler', is_user: true, mes: 'hi' };

describe('appendedMessageProblem', () => {
  test.for([
    [ok, null],
    [{ name: 'Seraphina', mes: '', send_date: 1673181146000, swipes: ['a'] }, null],
    [{ name: 'n', mes: 'm', is_system: true, send_date: 'May 12, 2023 9:32pm' }, null],
    [null, 'must be a JSON object, got null'],
    [['a'], 'must be a JSON object, got an array'],
    ['hi', 'must be a JSON object, got string'],
    [{ name: 'n' }, '`mes` must be a string, got undefined'],
    [{ name: 'n', mes: 42 }, '`mes` must be a string, got number'],
    [{ mes: 'm' }, '`name` must be a string, got undefined'],
    [{ name: 'n', mes: 'm', is_user: 'yes' }, '`is_user` must be a boolean, got string'],
    [{ name: 'n', mes: 'm', is_system: null }, '`is_system` must be a boolean, got null'],
    [{ name: 'n', mes: 'm', send_date: {} }, '`send_date` must be a string or a number, got object'],
  ] as const)('%j → %s', ([value, problem]) => {
    expect(appendedMessageProblem(value)).toBe(problem);
  });
});

describe('firstAppendProblem', () => {
  test('names the first bad message by its position in the batch', () => {
    expect(firstAppendProblem([ok, ok, { name: 'n' }, 7])).toEqual({
      index: 2,
      problem: '`mes` must be a string, got undefined',
    });
  });

  test('is null when every message is well formed', () => {
    expect(firstAppendProblem([ok, ok])).toBeNull();
  });
});
