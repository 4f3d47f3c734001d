import { sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { touch } from '../../src/db/commits.js';
import { type Executor, rowsOf } from '../../src/db/tx.js';
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

/**
 * On Postgres an append is not waited for inside its transaction (src/db/pipelined-begin.ts,
 * `awaitWithCommit`): what the transaction guarantees must not change with it.
 */
describe('appends left for the commit', () => {
  const countOf = async (tx: Executor, actor: string) =>
    Number(
      rowsOf<{ n: number }>(
        await tx.execute(sql`select count(*)::int as n from journal_events where actor = ${actor}`),
      )[0]!.n,
    );

  test("the transaction's next statement sees the events appended before it", async ({ testDb }) => {
    const seen = await testDb.database.db.transaction(async (tx) => {
      await appendEvents(tx, [{ type: 'checkpoint_created', actor: 'left-read', payload: {} }]);
      return countOf(tx, 'left-read');
    });
    expect(seen).toBe(1);
  });

  test('an append that fails fails its transaction with its own error, and nothing of it commits', async ({
    testDb,
  }) => {
    await expect(
      testDb.database.db.transaction(async (tx) => {
        await appendEvents(tx, [{ type: 'checkpoint_created', actor: 'left-failed', payload: {} }]);
        await appendEvents(tx, [
          { type: 'checkpoint_created', actor: 'left-failed', runId: 'not-a-uuid', payload: {} },
        ]);
        // Refused on Postgres (the transaction is aborted): the append's error is the one thrown.
        await tx.execute(sql`select 1`);
      }),
    ).rejects.toThrow(/uuid/);
    expect(await countOf(testDb.database.db, 'left-failed')).toBe(0);
  });
});
