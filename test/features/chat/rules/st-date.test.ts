import { describe, expect, it } from 'vitest';
import { parseStDate } from '../../../../src/features/chat/rules/st-date.js';

describe('parseStDate', () => {
  it.each([
    ['August 7, 2024 8:30pm', '2024-08-07T20:30:00.000Z'],
    ['August 7, 2024 6:47pm', '2024-08-07T18:47:00.000Z'],
    ['August 7, 2024 12:05am', '2024-08-07T00:05:00.000Z'],
    ['August 7, 2024 12:05pm', '2024-08-07T12:05:00.000Z'],
    ['Aug 7, 2024 8:30 PM', '2024-08-07T20:30:00.000Z'],
    ['December 31, 2023 23:59', '2023-12-31T23:59:00.000Z'],
  ])('reads the ST message stamp %s as wall-clock UTC', (input, expected) => {
    expect(parseStDate(input)).toBe(expected);
  });

  it.each([
    ['2024-08-07@18h45m42s', '2024-08-07T18:45:42.000Z'],
    ['2023-5-12 @21h 32m 29s 224ms', '2023-05-12T21:32:29.224Z'],
  ])('reads the ST file stamp %s', (input, expected) => {
    expect(parseStDate(input)).toBe(expected);
  });

  it.each([
    ['2024-08-07T12:30:37.813Z', '2024-08-07T12:30:37.813Z'],
    ['2024-08-07T20:30:37+08:00', '2024-08-07T12:30:37.000Z'],
    ['2024-08-07T12:30', '2024-08-07T12:30:00.000Z'],
    ['2024-08-07', '2024-08-07T00:00:00.000Z'],
  ])('reads ISO 8601 %s', (input, expected) => {
    expect(parseStDate(input)).toBe(expected);
  });

  it('reads epoch milliseconds as numbers and digit strings', () => {
    expect(parseStDate(1674559896839)).toBe('2023-01-24T11:31:36.839Z');
    expect(parseStDate('1674559896839')).toBe('2023-01-24T11:31:36.839Z');
  });

  it.each([
    ['not a date'],
    ['Smarch 7, 2024 8:30pm'],
    ['February 30, 2024 8:30pm'],
    ['August 7, 2024 13:30pm'],
    ['2024-13-01'],
    [Number.NaN],
    [null],
    [undefined],
    [{}],
  ])('returns null for %s', (input) => {
    expect(parseStDate(input)).toBeNull();
  });
});
