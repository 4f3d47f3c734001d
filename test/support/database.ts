import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { inject } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.js';
import { testPostgresUrl, withDatabase } from './env.js';

export interface TestDatabase {
  database: Database;
  /** Set on real Postgres: a second process or client can connect to the same database. */
  url: string | null;
  drop(): Promise<void>;
}

let counter = 0;

/** A fresh, migrated, isolated database for one test, on the driver of the running project. */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (inject('driver') === 'pglite') {
    const blob = new Blob([readFileSync(inject('pgliteTemplate'))]);
    const database = await openDatabase({ driver: 'pglite', loadDataDir: blob });
    return { database, url: null, drop: () => database.close() };
  }
  counter += 1;
  const name = `ats_t_${process.pid}_${Date.now()}_${counter}`;
  const admin = postgres(testPostgresUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name} template ${inject('postgresTemplate')}`);
  const url = withDatabase(testPostgresUrl, name);
  const database = await openDatabase({ driver: 'postgres', url });
  return {
    database,
    url,
    async drop() {
      await database.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

/**
 * Empties every application table, so tests that share a file's database start from nothing.
 * journal_origin stays: it is how the database numbers journal positions, not data. Only tables
 * that hold rows are truncated, in one statement: a TRUNCATE gives each table new files, which for
 * all ~45 tables costs PGlite a few hundred milliseconds per test. No public table has a sequence,
 * so an empty table has nothing left to reset.
 */
const TRUNCATE_HELD = sql.raw(`do $$
declare
  t text;
  has boolean;
  held text[] := '{}';
begin
  for t in select quote_ident(tablename) from pg_tables
    where schemaname = 'public' and tablename <> 'journal_origin' order by tablename
  loop
    execute 'select exists (select from ' || t || ')' into has;
    if has then held := held || t; end if;
  end loop;
  if cardinality(held) > 0 then
    execute 'truncate ' || array_to_string(held, ', ') || ' restart identity cascade';
  end if;
end $$`);

export async function resetDatabase(database: Database): Promise<void> {
  // A previous test's last statements can still hold locks for a moment; a deadlock here is retried.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await database.db.execute(TRUNCATE_HELD);
      return;
    } catch (error) {
      const code =
        (error as { cause?: { code?: string }; code?: string }).cause?.code ??
        (error as { code?: string }).code;
      if (code !== '40P01' || attempt >= 5) throw error;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}
