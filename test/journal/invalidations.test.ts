import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import type { Tx } from '../../src/db/tx.js';
import { Cached } from '../../src/journal/cached.js';
import { changeTopics, Invalidations } from '../../src/journal/invalidations.js';

/**
 * A database that records its NOTIFYs and delivers them only when the test says so, and whose
 * LISTEN the test can say was (re-)established.
 */
function fakeDatabase() {
  const sent: string[] = [];
  const listeners: Array<{ onNotify: (payload: string) => void; onListen?: () => void }> = [];
  const tx = {
    // The values of `sql` tags are its plain chunks: the channel, then the payload.
    execute: async (query: { queryChunks: unknown[] }) => {
      const payload = query.queryChunks.find((c) => typeof c === 'string' && c.startsWith('{'));
      sent.push(payload as string);
    },
  };
  const database = {
    driver: 'pglite',
    db: { transaction: async <T>(work: (tx: Tx) => Promise<T>) => work(tx as unknown as Tx) },
    listen: async (_channel: string, listener: (typeof listeners)[number]) => {
      listeners.push(listener);
      listener.onListen?.();
      return async () => {};
    },
    close: async () => {},
  } as unknown as Database;
  return {
    database,
    tx: tx as unknown as Tx,
    sent,
    deliver: () => {
      for (const payload of sent.splice(0)) for (const l of listeners) l.onNotify(payload);
    },
    reconnect: () => {
      for (const l of listeners) l.onListen?.();
    },
  };
}

const warnings: string[] = [];
const logger = {
  warn: (_fields: unknown, message: string) => warnings.push(message),
} as unknown as ConstructorParameters<typeof Invalidations>[1];

async function started(echoWaitMs = 60_000) {
  const fake = fakeDatabase();
  const changes = new Invalidations(fake.database, logger, echoWaitMs);
  await changes.start();
  return { fake, changes };
}

function counting(changes: Invalidations) {
  const runs: string[] = [];
  for (const topic of changeTopics) changes.on(topic, () => runs.push(topic));
  return runs;
}

describe('Invalidations', () => {
  it("runs a topic's handlers when another process's notification of it arrives", async () => {
    const { fake, changes } = await started();
    const runs = counting(changes);
    fake.sent.push(JSON.stringify({ topic: 'registry', id: 'another-process:1' }));
    fake.deliver();
    expect(runs).toEqual(['registry']);
  });

  it('runs every handler when its LISTEN is established again', async () => {
    const { fake, changes } = await started();
    const runs = counting(changes);
    fake.reconnect();
    expect(runs).toEqual(['policy', 'registry', 'tokens', 'notification-targets', 'mcp-sessions']);
  });

  it("a writer's transaction returns only once its own notification is back", async () => {
    const { fake, changes } = await started();
    let returned = false;
    const writing = changes
      .transaction(async (tx) => changes.notify(tx, 'policy'))
      .then(() => {
        returned = true;
      });
    await new Promise((resolve) => setImmediate(resolve));
    expect({ returned, unsettled: changes.unsettled('policy') }).toEqual({
      returned: false,
      unsettled: true,
    });
    fake.deliver();
    await writing;
    expect({ returned, unsettled: changes.unsettled('policy') }).toEqual({
      returned: true,
      unsettled: false,
    });
  });

  it('a writer whose notification does not come back answers after the wait, with a warning', async () => {
    const { changes } = await started(5);
    warnings.length = 0;
    await changes.transaction(async (tx) => changes.notify(tx, 'tokens'));
    expect(warnings).toEqual([
      'a change notification did not come back in time: other processes may act on the old state until they hear it',
    ]);
  });

  it('knows which topics a transaction has itself changed', async () => {
    const { fake, changes } = await started();
    await changes.notify(fake.tx, 'policy');
    expect(changeTopics.map((topic) => changes.changedIn(fake.tx, topic))).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('Cached', () => {
  const loader = () => {
    let loads = 0;
    return {
      load: async () => {
        loads += 1;
        return loads;
      },
      loads: () => loads,
    };
  };

  it('loads once and then answers from memory', async () => {
    const { changes } = await started();
    const cached = new Cached<number>(changes, 'policy');
    const { load } = loader();
    expect([await cached.read(load), await cached.read(load)]).toEqual([1, 1]);
  });

  it('loads again after a notification of its topic, and not after one of another topic', async () => {
    const { fake, changes } = await started();
    const cached = new Cached<number>(changes, 'policy');
    const { load } = loader();
    await cached.read(load);
    fake.sent.push(JSON.stringify({ topic: 'tokens', id: 'x:1' }));
    fake.deliver();
    const afterTokens = await cached.read(load);
    fake.sent.push(JSON.stringify({ topic: 'policy', id: 'x:2' }));
    fake.deliver();
    expect([afterTokens, await cached.read(load)]).toEqual([1, 2]);
  });

  it('does not keep a load that a change overtook', async () => {
    const { fake, changes } = await started();
    const cached = new Cached<string>(changes, 'registry');
    let release: (value: string) => void = () => {};
    const slow = cached.read(() => new Promise<string>((resolve) => (release = resolve)));
    fake.sent.push(JSON.stringify({ topic: 'registry', id: 'x:1' }));
    fake.deliver();
    release('old rows');
    expect([await slow, await cached.read(async () => 'new rows')]).toEqual(['old rows', 'new rows']);
  });

  it('loads afresh once its LISTEN is established again', async () => {
    const { fake, changes } = await started();
    const cached = new Cached<number>(changes, 'tokens');
    const { load } = loader();
    await cached.read(load);
    fake.reconnect();
    expect(await cached.read(load)).toBe(2);
  });

  it('reads through the load, keeping nothing, in a transaction that changed its topic', async () => {
    const { fake, changes } = await started();
    const cached = new Cached<number>(changes, 'policy');
    const { load, loads } = loader();
    await cached.read(load);
    await changes.notify(fake.tx, 'policy');
    fake.deliver();
    expect([await cached.read(load, fake.tx), await cached.read(load, fake.tx), loads()]).toEqual([2, 3, 3]);
  });

  it('reads through the load while a change this process sent is not back yet', async () => {
    const { fake, changes } = await started();
    const cached = new Cached<number>(changes, 'policy');
    const { load } = loader();
    await cached.read(load);
    const writing = changes.transaction(async (tx) => changes.notify(tx, 'policy'));
    await new Promise((resolve) => setImmediate(resolve));
    const during = [await cached.read(load), await cached.read(load)];
    fake.deliver();
    await writing;
    expect([...during, await cached.read(load), await cached.read(load)]).toEqual([2, 3, 4, 4]);
  });
});
