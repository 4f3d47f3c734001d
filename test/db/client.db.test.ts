import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
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
});
