import { sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { touch } from '../../src/db/commits.js';
import { appendEvents } from '../../src/journal/append.js';
import { dbTest as test } from '../support/fixtures.js';

/** Lets the listeners a commit started run (they are called from a promise callback). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What wakes the journal's followers: listeners that run after a commit that touched their topic. */
describe('commit hooks', () => {
  test('a transaction that appends events runs the journal listeners once, after its commit', async ({
    testDb,
  }) => {
    const seen: string[] = [];
    const off = testDb.database.onCommit('journal', () => {
      seen.push('listener');
    });
    await testDb.database.db.transaction(async (tx) => {
      await appendEvents(tx, [{ type: 'checkpoint_created', actor: 'test', payload: { n: 1 } }]);
      await tx.transaction((savepoint) =>
        appendEvents(savepoint, [{ type: 'checkpoint_created', actor: 'test', payload: { n: 2 } }]),
      );
      seen.push('before commit');
    });
    await flush();
    off();
    expect(seen).toEqual(['before commit', 'listener']);
  });

  test('a transaction that rolls back runs no listener', async ({ testDb }) => {
    const seen: string[] = [];
    const off = testDb.database.onCommit('journal', () => {
      seen.push('listener');
    });
    await expect(
      testDb.database.db.transaction(async (tx) => {
        await appendEvents(tx, [{ type: 'checkpoint_created', actor: 'test', payload: {} }]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await flush();
    off();
    expect(seen).toEqual([]);
  });

  test('a transaction that touches nothing runs no listener', async ({ testDb }) => {
    const seen: string[] = [];
    const off = testDb.database.onCommit('journal', () => {
      seen.push('listener');
    });
    await testDb.database.db.transaction((tx) => tx.execute(sql`select 1`));
    await flush();
    off();
    expect(seen).toEqual([]);
  });

  test('a mark made after its transaction ended (work it left running) runs the listeners at once', async ({
    testDb,
  }) => {
    const seen: string[] = [];
    const off = testDb.database.onCommit('journal', () => {
      seen.push('listener');
    });
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let leftRunning: Promise<void> = Promise.resolve();
    await testDb.database.db.transaction(async () => {
      leftRunning = gate.then(() => touch('journal'));
    });
    await flush();
    expect(seen).toEqual([]);
    open();
    await leftRunning;
    await flush();
    off();
    expect(seen).toEqual(['listener']);
  });
});
