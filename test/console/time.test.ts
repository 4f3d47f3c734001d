import { describe, expect, test } from 'vitest';
import { elapsed, expiresIn, formatDuration, waitedFor } from '../../console/src/logic/time.js';

const now = Date.parse('2026-01-01T12:00:00.000Z');

describe('durations', () => {
  test.each([
    [0, '0s'],
    [59_999, '59s'],
    [60_000, '1m 00s'],
    [245_000, '4m 05s'],
    [3_600_000 + 180_000, '1h 03m'],
    [2 * 86_400_000 + 4 * 3_600_000, '2d 4h'],
    [-5_000, '0s'],
  ])('%i ms reads %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  test('waited counts from the request', () => {
    expect(waitedFor('2026-01-01T11:55:55.000Z', now)).toBe('4m 05s');
  });

  test('a call that expires later says in how long', () => {
    expect(expiresIn('2026-01-01T12:01:30.000Z', now)).toBe('in 1m 30s');
  });

  test('a call past its expiry says expired', () => {
    expect(expiresIn('2026-01-01T11:59:00.000Z', now)).toBe('expired');
  });

  test('a call without a limit never expires', () => {
    expect(expiresIn(null, now)).toBe('never');
  });

  test('a timing is null while its end has not happened', () => {
    expect(elapsed('2026-01-01T12:00:00.000Z', null)).toBeNull();
  });

  test('a timing is the milliseconds between its ends', () => {
    expect(elapsed('2026-01-01T12:00:00.000Z', '2026-01-01T12:00:01.250Z')).toBe(1250);
  });
});
