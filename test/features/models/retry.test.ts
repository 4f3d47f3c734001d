import { describe, expect, test } from 'vitest';
import { redact } from '../../../src/features/models/http/errors.js';
import { DEFAULT_RETRY_POLICY, retryAfterMs, retryDelayMs } from '../../../src/features/models/http/retry.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('the retry rules', () => {
  test('Retry-After in seconds, as an HTTP date, and OpenAI’s retry-after-ms are read as milliseconds', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), NOW)).toBe(2_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), NOW)).toBe(5_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }), NOW)).toBe(0);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), NOW)).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), NOW)).toBeNull();
    expect(retryAfterMs(new Headers(), NOW)).toBeNull();
  });

  test('the back-off doubles per attempt between half and all of its step, up to the cap', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, null, policy, () => 0))).toEqual([
      50, 100, 200, 400, 500,
    ]);
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, null, policy, () => 1))).toEqual([
      100, 200, 400, 800, 1_000,
    ]);
  });

  test('the provider’s hint is a floor under the back-off', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(retryDelayMs(1, 3_000, policy, () => 1)).toBe(3_000);
    expect(retryDelayMs(4, 10, policy, () => 1)).toBe(800);
  });

  test('a reason masks the connection’s secrets and anything key-like, and stays short', () => {
    expect(redact('bad key sk-proj-abcdefghijklmnop and hunter2', ['hunter2'])).toBe(
      'bad key [redacted] and [redacted]',
    );
    expect(redact('x'.repeat(500), [])).toBe('[redacted]');
    expect(redact(`${'word '.repeat(60)}`, [])).toHaveLength(160);
  });
});
