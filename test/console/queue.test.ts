import { describe, expect, test } from 'vitest';
import {
  initialQueue,
  type QueueAction,
  type QueueState,
  queueReducer,
} from '../../console/src/logic/queue.js';

interface Call {
  id: string;
  requestedAt: string;
  status?: string;
}

const call = (id: string, second: number, status = 'AWAITING_APPROVAL'): Call => ({
  id,
  requestedAt: `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`,
  status,
});
const entered = (c: Call, pending = 1): QueueAction<Call> => ({
  type: 'event',
  event: { kind: 'ENTERED', call: c, pending },
});
const left = (c: Call, pending = 0): QueueAction<Call> => ({
  type: 'event',
  event: { kind: 'LEFT', call: c, pending },
});
const snapshotEnd = (pending: number): QueueAction<Call> => ({
  type: 'event',
  event: { kind: 'SNAPSHOT_END', call: null, pending },
});

const run = (actions: QueueAction<Call>[], from: QueueState<Call> = initialQueue<Call>()) =>
  actions.reduce(queueReducer, from);
const ids = (state: QueueState<Call>) => state.cards.map((c) => c.id);

describe('the queue reducer', () => {
  test('shows nothing until the snapshot ends, then the snapshot', () => {
    const during = run([entered(call('a', 1)), entered(call('b', 2))]);
    expect(ids(during)).toEqual([]);
    expect(ids(run([snapshotEnd(2)], during))).toEqual(['a', 'b']);
  });

  test('orders cards oldest first whatever order they arrive in', () => {
    const state = run([
      entered(call('late', 9)),
      entered(call('early', 1)),
      snapshotEnd(2),
      entered(call('mid', 5)),
    ]);
    expect(ids(state)).toEqual(['early', 'mid', 'late']);
  });

  test('orders calls requested in the same instant by id', () => {
    expect(ids(run([entered(call('b', 1)), entered(call('a', 1)), snapshotEnd(2)]))).toEqual(['a', 'b']);
  });

  test('a live ENTERED adds a card', () => {
    expect(ids(run([snapshotEnd(0), entered(call('a', 1))]))).toEqual(['a']);
  });

  test('an ENTERED for a card already shown replaces it instead of adding a second', () => {
    const state = run([snapshotEnd(0), entered(call('a', 1, 'OLD')), entered(call('a', 1, 'NEW'))]);
    expect(state.cards).toEqual([call('a', 1, 'NEW')]);
  });

  test('a LEFT removes its card', () => {
    expect(
      ids(run([entered(call('a', 1)), entered(call('b', 2)), snapshotEnd(2), left(call('a', 1))])),
    ).toEqual(['b']);
  });

  test('a LEFT for a card not shown changes nothing but the count', () => {
    const state = run([entered(call('a', 1)), snapshotEnd(1), left(call('zzz', 3), 7)]);
    expect({ ids: ids(state), pending: state.pending }).toEqual({ ids: ['a'], pending: 7 });
  });

  test('keeps the server count of the last event', () => {
    expect(run([entered(call('a', 1), 1), snapshotEnd(1), entered(call('b', 2), 2)]).pending).toBe(2);
  });

  test('after a resubscription the cards shown stay until the new snapshot ends', () => {
    const before = run([entered(call('a', 1)), snapshotEnd(1)]);
    const during = run([{ type: 'resubscribed' }, entered(call('b', 2))], before);
    expect(ids(during)).toEqual(['a']);
  });

  test('the new snapshot replaces the cards: one that left while away goes, none is doubled', () => {
    const before = run([entered(call('a', 1)), entered(call('b', 2)), snapshotEnd(2)]);
    const after = run(
      [{ type: 'resubscribed' }, entered(call('b', 2)), entered(call('c', 3)), snapshotEnd(2)],
      before,
    );
    expect(ids(after)).toEqual(['b', 'c']);
  });

  test('a card decided on this page goes at once', () => {
    expect(
      ids(run([entered(call('a', 1)), entered(call('b', 2)), snapshotEnd(2), { type: 'decided', id: 'a' }])),
    ).toEqual(['b']);
  });

  test('a card decided during a snapshot is not brought back by it', () => {
    const state = run([entered(call('a', 1)), { type: 'decided', id: 'a' }, snapshotEnd(1)]);
    expect(ids(state)).toEqual([]);
  });
});
