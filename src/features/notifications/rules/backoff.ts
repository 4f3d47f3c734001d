export interface RetryPolicy {
  /** Attempts in all, the first included; after the last failure the delivery is FAILED. */
  maxAttempts: number;
  /** The wait after the first failure; each further failure doubles it. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_NOTIFICATION_RETRY: RetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 5_000,
  maxDelayMs: 15 * 60_000,
};

/** The wait after failed attempt number `attempt` (1-based); null when that was the last one. */
export function retryDelay(policy: RetryPolicy, attempt: number): number | null {
  if (attempt >= policy.maxAttempts) return null;
  return Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
}
