import { eq, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { pipelinedBegin } from '../../src/db/pipelined-begin.js';
import { runs } from '../../src/db/schema.js';
import { type Executor, rowsOf, type Tx } from '../../src/db/tx.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(() => testDb.drop());

/** The statements this connection has prepared, by their text. */
async function preparedOn(tx: Tx): Promise<string[]> {
  const rows = rowsOf<{ statement: string }>(
    await tx.execute(sql`select statement from pg_prepared_statements`),
  );
  return rows.map((row) => row.statement);
}

const lookup = (tx: Executor) =>
  tx.select({ id: runs.id }).from(runs).where(eq(runs.id, '00000000-0000-4000-8000-000000000000'));

// PGlite has one in-process connection and no round trips to save.
describe.skipIf(inject('driver') !== 'postgres')('the Postgres client', () => {
  test('a query with parameters in a transaction is a prepared statement of its connection', async () => {
    const statements = await testDb.database.db.transaction(async (tx) => {
      await lookup(tx);
      return preparedOn(tx);
    });
    expect(statements).toContain(lookup(testDb.database.db).toSQL().sql);
  });

  test('so is one in a savepoint', async () => {
    const statements = await testDb.database.db.transaction((tx) =>
      tx.transaction(async (savepoint) => {
        await savepoint.select({ n: sql<number>`${41}::int + 1` }).from(runs);
        return preparedOn(savepoint);
      }),
    );
    expect(statements).toContain('select $1::int + 1 from "runs"');
  });

  const newRun = (tx: Executor, createdBy: string) =>
    tx
      .insert(runs)
      .values({ status: 'RUNNING', deniedToolStrategy: 'FAIL_RUN', createdBy })
      .returning({ id: runs.id });
  const runsBy = async (createdBy: string) =>
    (await testDb.database.db.select({ id: runs.id }).from(runs).where(eq(runs.createdBy, createdBy))).length;

  // BEGIN and SAVEPOINT go out with the statement after them (src/db/pipelined-begin.ts): what a
  // transaction guarantees must not change with it.
  test('a transaction is one: its statements commit together or not at all', async () => {
    const xid = async (tx: Executor) =>
      rowsOf<{ xid: string }>(await tx.execute(sql`select pg_current_xact_id()::text as xid`))[0]!.xid;
    await testDb.database.db.transaction(async (tx) => {
      const first = await xid(tx);
      await newRun(tx, 'pipelined-commit');
      expect(await xid(tx)).toBe(first);
    });
    expect(await runsBy('pipelined-commit')).toBe(1);
    await expect(
      testDb.database.db.transaction(async (tx) => {
        await newRun(tx, 'pipelined-rollback');
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await runsBy('pipelined-rollback')).toBe(0);
  });

  test('a statement that failed unawaited rolls the transaction back and its commit throws', async () => {
    await expect(
      testDb.database.db.transaction(async (tx) => {
        await newRun(tx, 'pipelined-unawaited');
        void tx.execute(sql`select 1 / 0`).catch(() => {});
      }),
    ).rejects.toThrow(/rolled back/);
    expect(await runsBy('pipelined-unawaited')).toBe(0);
  });

  test('a savepoint that throws undoes only its own statements', async () => {
    await testDb.database.db.transaction(async (tx) => {
      await newRun(tx, 'pipelined-outer');
      await expect(
        tx.transaction(async (savepoint) => {
          await newRun(savepoint, 'pipelined-inner');
          throw new Error('undo inner');
        }),
      ).rejects.toThrow('undo inner');
      await tx.transaction((savepoint) => newRun(savepoint, 'pipelined-kept'));
    });
    expect(await runsBy('pipelined-outer')).toBe(1);
    expect(await runsBy('pipelined-inner')).toBe(0);
    expect(await runsBy('pipelined-kept')).toBe(1);
  });

  test('a savepoint goes out ahead of its first statement, and one in which nothing runs not at all', async () => {
    const sent: string[] = [];
    const sql = postgres(testDb.url!, {
      max: 1,
      onnotice: () => {},
      debug: (_, query) => sent.push(query),
    });
    try {
      await pipelinedBegin(sql, async (tx) => {
        await tx.savepoint(async () => {});
        await expect(
          tx.savepoint(async () => {
            throw new Error('nothing to undo');
          }),
        ).rejects.toThrow('nothing to undo');
        await tx.savepoint((outer) =>
          outer.savepoint(async (inner) => {
            await inner.unsafe('select 1');
          }),
        );
      });
    } finally {
      await sql.end();
    }
    // After the array types postgres.js reads on connecting.
    expect(sent.slice(sent.indexOf('begin'))).toEqual([
      'begin',
      'savepoint s2',
      'savepoint s3',
      'select 1',
      'commit',
    ]);
  });

  test('a statement that fails in a transaction fails it, and the connection serves the next one', async () => {
    await expect(
      testDb.database.db.transaction(async (tx) => {
        await newRun(tx, 'pipelined-failed');
        await tx.execute(sql`select 1 / 0`);
      }),
    ).rejects.toThrow(/Failed query: select 1 \/ 0/);
    expect(await runsBy('pipelined-failed')).toBe(0);
    const open = await Promise.all(
      Array.from({ length: 20 }, () => testDb.database.db.transaction((tx) => tx.execute(sql`select 1`))),
    );
    expect(open).toHaveLength(20);
  });
});
