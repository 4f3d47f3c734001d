/**
 * What the page says about its link to the server. `reconnecting` while a connection is being made
 * (the first one too); `offline` once several attempts in a row have failed (or the browser says it
 * is offline), while it keeps trying with back-off.
 */
export type ConnectionState = 'connected' | 'reconnecting' | 'offline';

export interface LinkState {
  state: ConnectionState;
  /** Attempts that ended without a connection since the last success. */
  failures: number;
}

/** After this many failed attempts in a row the page says offline. */
export const OFFLINE_AFTER_FAILURES = 3;

export type LinkEvent = 'connecting' | 'connected' | 'closed' | 'browser-offline';

export const initialLink: LinkState = { state: 'reconnecting', failures: 0 };

export function linkReducer(link: LinkState, event: LinkEvent): LinkState {
  switch (event) {
    case 'connected':
      return { state: 'connected', failures: 0 };
    case 'connecting':
      return { ...link, state: link.failures >= OFFLINE_AFTER_FAILURES ? 'offline' : 'reconnecting' };
    case 'closed': {
      const failures = link.state === 'connected' ? 0 : link.failures + 1;
      return { state: failures >= OFFLINE_AFTER_FAILURES ? 'offline' : 'reconnecting', failures };
    }
    case 'browser-offline':
      return { ...link, state: 'offline' };
  }
}

/** Exponential back-off with jitter: about 0.5 s, 1 s, 2 s … up to 15 s between attempts. */
export function retryDelayMs(retries: number, random: () => number = Math.random): number {
  const base = Math.min(15_000, 500 * 2 ** Math.min(retries, 10));
  return Math.round(base * (0.75 + random() * 0.5));
}
