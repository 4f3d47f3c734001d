import { describe, expect, test } from 'vitest';
import { parseDuration, parseExpiry } from '../../../src/features/tokens/cli.js';

const NOW = new Date('2030-01-01T00:00:00Z');

describe('token create --expires', () => {
  test.each([
    ['90s', '2030-01-01T00:01:30.000Z'],
    ['5m', '2030-01-01T00:05:00.000Z'],
    ['12h', '2030-01-01T12:00:00.000Z'],
    ['30d', '2030-01-31T00:00:00.000Z'],
    ['2030-06-01', '2030-06-01T00:00:00.000Z'],
    ['2030-06-01T12:30:00Z', '2030-06-01T12:30:00.000Z'],
    ['2030-06-01T12:30:00+02:00', '2030-06-01T10:30:00.000Z'],
  ])('%s is %s', (value, expected) => {
    expect(parseExpiry(value, NOW).toISOString()).toBe(expected);
  });

  test.each(['30', '3w', 'tomorrow', '2030-13-45', '-5m'])('%s is a usage error', (value) => {
    expect(() => parseExpiry(value, NOW)).toThrow(
      `--expires must be a duration (30d, 12h, 5m, 90s) or an ISO date, not ${value}`,
    );
  });
});

describe('token rotate --overlap', () => {
  test('takes a duration in seconds', () => {
    expect(parseDuration('5m', '--overlap')).toBe(300);
  });

  test('without a unit is a usage error', () => {
    expect(() => parseDuration('300', '--overlap')).toThrow(
      '--overlap must be a number with a unit s, m, h or d (e.g. 30d), not 300',
    );
  });
});
