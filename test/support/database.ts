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
 * journal_origin stays: it is how the database numbers journal positions, not data.
 */
export async function resetDatabase(database: Database): Promise<void> {
  const rows = (await database.db.execute(
    sql`select tablename from pg_tables
      where schemaname = 'public' and tablename <> 'journal_origin' order by tablename`,
  )) as unknown as { rows?: Array<{ tablename: string }> } & Array<{ tablename: string }>;
  const names = (rows.rows ?? rows).map((r) => `"${r.tablename}"`);
  if (names.length === 0) return;
  // A previous test's last statements can still hold locks for a moment; a deadlock here is retried.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await database.db.execute(sql.raw(`truncate ${names.join(', ')} restart identity cascade`));
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
