export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** The first back-off; each further one doubles, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /**
   * A `Retry-After` longer than this is not waited for: the request fails at once, since a caller
   * holding a run for an hour is worse than a clear failure.
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
};

/** 429 and 5xx may pass; any other status would fail the same way again. */
export function retryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * The provider's hint in milliseconds: OpenAI's `retry-after-ms`, else `Retry-After` in seconds or
 * as an HTTP date. Null when there is none, or it cannot be read.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * Exponential back-off with jitter (half fixed, half random, so retries of many runs spread out),
 * never shorter than the provider's hint.
 */
export function retryDelayMs(
  failedAttempt: number,
  hintMs: number | null,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failedAttempt - 1));
  const jittered = Math.round(exponential / 2 + (random() * exponential) / 2);
  return Math.max(jittered, hintMs ?? 0);
}
