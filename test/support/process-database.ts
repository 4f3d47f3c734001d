import type { Sql } from 'postgres';

/**
 * A process test's own database, created afresh on the test Postgres. Returns why it cannot be
 * (Postgres down), which the tests skip with; under REQUIRE_POSTGRES=1 that is a failure instead.
 */
export async function freshDatabase(admin: Sql, dbName: string): Promise<string> {
  try {
    await admin`select 1`;
  } catch (error) {
    const reason = `real Postgres did not answer: ${(error as Error).message}`;
    if (process.env.REQUIRE_POSTGRES === '1') throw new Error(reason);
    return reason;
  }
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.unsafe(`create database ${dbName}`);
  return '';
}
