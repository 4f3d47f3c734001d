import { describe, expect, test } from 'vitest';
import { Feed } from '../../src/journal/feed.js';

const tooSlow = () => new Error('too slow');

describe('a subscriber feed', () => {
  test('reads asked for before the values come get them in order', async () => {
    const feed = new Feed<number>(10, tooSlow);
    const reads = [feed.next(), feed.next()];
    feed.push(1);
    feed.push(2);
    feed.push(3);
    expect(await Promise.all(reads)).toEqual([
      { value: 1, done: false },
      { value: 2, done: false },
    ]);
    expect(await feed.next()).toEqual({ value: 3, done: false });
  });

  test('a reader past the limit gets the values it had, then the error, and the feed closes', async () => {
    const feed = new Feed<number>(2, tooSlow);
    let closed = false;
    feed.onClose(() => {
      closed = true;
    });
    for (const n of [1, 2, 3, 4]) feed.push(n);
    expect(await feed.next()).toEqual({ value: 1, done: false });
    expect(await feed.next()).toEqual({ value: 2, done: false });
    await expect(feed.next()).rejects.toThrow('too slow');
    expect({ closed, after: await feed.next() }).toEqual({
      closed: true,
      after: { value: undefined, done: true },
    });
  });

  test('drained() waits until the reader took every value pushed, and return() ends pending reads', async () => {
    const feed = new Feed<number>(10, tooSlow);
    feed.push(1);
    let drained = false;
    const waiting = feed.drained().then(() => {
      drained = true;
    });
    await Promise.resolve();
    expect(drained).toBe(false);
    await feed.next();
    await waiting;
    const pending = feed.next();
    await feed.return();
    expect({ drained, pending: await pending }).toEqual({
      drained: true,
      pending: { value: undefined, done: true },
    });
  });
});

describe('a feed diverted to a sink', () => {
  test('values go to the sink only while a read waits with nothing unread, so none overtakes one read before it', async () => {
    const feed = new Feed<number>(10, tooSlow);
    const sunk: number[] = [];
    let accepting = true;
    feed.divert((n) => {
      if (accepting) sunk.push(n);
      return accepting;
    });
    feed.push(1);
    feed.push(2);
    expect(await feed.next()).toEqual({ value: 1, done: false });
    expect(await feed.next()).toEqual({ value: 2, done: false });
    const pending = feed.next();
    feed.push(3);
    feed.push(4);
    expect(sunk).toEqual([3, 4]);
    accepting = false;
    feed.push(5);
    feed.push(6);
    expect(await pending).toEqual({ value: 5, done: false });
    expect(await feed.next()).toEqual({ value: 6, done: false });
    expect(sunk).toEqual([3, 4]);
  });

  test('a sink that takes every value leaves nothing unread, and a closed feed hands it nothing more', async () => {
    const feed = new Feed<number>(1, tooSlow);
    const sunk: number[] = [];
    feed.divert((n) => sunk.push(n) > 0);
    const pending = feed.next();
    for (const n of [1, 2, 3]) feed.push(n);
    expect({ sunk: [...sunk], backlog: feed.backlog }).toEqual({ sunk: [1, 2, 3], backlog: 0 });
    await feed.drained();
    await feed.return();
    feed.push(4);
    expect({ sunk, pending: await pending }).toEqual({
      sunk: [1, 2, 3],
      pending: { value: undefined, done: true },
    });
  });
});
