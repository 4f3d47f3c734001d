import { describe, expect, test } from 'vitest';
import {
  initialLink,
  type LinkEvent,
  linkReducer,
  OFFLINE_AFTER_FAILURES,
  retryDelayMs,
} from '../../console/src/logic/connection-state.js';

const stateAfter = (events: LinkEvent[]) => events.reduce(linkReducer, initialLink).state;

describe('the connection state', () => {
  test('is reconnecting before the first connection', () => {
    expect(stateAfter(['connecting'])).toBe('reconnecting');
  });

  test('is connected once acknowledged', () => {
    expect(stateAfter(['connecting', 'connected'])).toBe('connected');
  });

  test('a connection that drops is reconnecting', () => {
    expect(stateAfter(['connecting', 'connected', 'closed', 'connecting'])).toBe('reconnecting');
  });

  test(`is offline after ${OFFLINE_AFTER_FAILURES} failed attempts in a row`, () => {
    const failures: LinkEvent[] = Array.from(
      { length: OFFLINE_AFTER_FAILURES },
      () => ['connecting', 'closed'] as LinkEvent[],
    ).flat();
    expect(stateAfter(['connected', 'closed', ...failures, 'connecting'])).toBe('offline');
  });

  test('a success after being offline is connected again', () => {
    expect(stateAfter(['closed', 'closed', 'closed', 'connecting', 'connected'])).toBe('connected');
  });

  test('is offline when the browser says so', () => {
    expect(stateAfter(['connected', 'browser-offline'])).toBe('offline');
  });
});

describe('the back-off', () => {
  test('doubles with each retry', () => {
    expect([0, 1, 2, 3].map((n) => retryDelayMs(n, () => 0.5))).toEqual([500, 1000, 2000, 4000]);
  });

  test('stops growing at 15 s', () => {
    expect(retryDelayMs(50, () => 0.5)).toBe(15_000);
  });

  test('spreads clients by up to a quarter either way', () => {
    expect([retryDelayMs(2, () => 0), retryDelayMs(2, () => 1)]).toEqual([1500, 2500]);
  });
});
