import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import type { Database } from './client.js';
import { rowsOf } from './tx.js';

const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Any constant works; it only has to be the same in every process that migrates this database. */
const MIGRATION_LOCK_KEY = 7_311_042_901;

/**
 * Journal positions grow with transaction ids; a database restored into another cluster (or
 * from a dump) may meet ids lower than its stored positions, and new events would sort before
 * old ones. At every start, before the process writes, positions move past the stored ones (see
 * `ats_journal_align`, migration 0019); a journal already ahead is left as it is.
 */
async function alignJournal(db: { execute(query: ReturnType<typeof sql>): Promise<unknown> }): Promise<void> {
  await db.execute(sql`select ats_journal_align()`);
}

/**
 * Whether the newest migration is already applied (a fresh directory copied from the template, or
 * a restart), by the rule Drizzle's migrator applies: a migration runs when its journal `when` is
 * later than the last applied `created_at`. Checked first because the migrator, before it finds
 * nothing to do, reads and hashes every migration file and runs CREATE SCHEMA and CREATE TABLE IF
 * NOT EXISTS, which against a just-opened PGlite's cold catalogs is about 100 ms of a start's CPU.
 */
export async function holdsNewestMigration(db: Database['db']): Promise<boolean> {
  const journal = JSON.parse(readFileSync(`${migrationsFolder}/meta/_journal.json`, 'utf8')) as {
    entries: Array<{ when: number }>;
  };
  const newest = Math.max(...journal.entries.map((entry) => entry.when));
  const [table] = rowsOf<{ name: string | null }>(
    await db.execute(sql`select to_regclass('drizzle.__drizzle_migrations') as name`),
  );
  if (!table?.name) return false;
  const [last] = rowsOf<{ at: unknown }>(
    await db.execute(sql`select max(created_at) as at from drizzle.__drizzle_migrations`),
  );
  return last?.at != null && Number(last.at) >= newest;
}

export async function runMigrations(database: Database, postgresUrl?: string): Promise<void> {
  if (database.driver === 'pglite') {
    if (!(await holdsNewestMigration(database.db))) {
      // biome-ignore lint/suspicious/noExplicitAny: the pglite migrator wants its own driver type; the instance is one.
      await migratePglite(database.db as any, { migrationsFolder });
    }
    await alignJournal(database.db);
    return;
  }
  if (!postgresUrl) throw new Error('runMigrations needs the Postgres URL for its dedicated connection');
  // Drizzle's migrator takes no lock, and concurrent first starts would race on the same DDL. A
  // session-level advisory lock needs one fixed connection, hence a separate single-connection client.
  const one = postgres(postgresUrl, { max: 1, onnotice: () => {} });
  try {
    const db = drizzlePostgres({ client: one });
    await db.execute(sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
    try {
      await migratePostgres(db, { migrationsFolder });
      await alignJournal(db);
    } finally {
      await db.execute(sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`);
    }
  } finally {
    await one.end({ timeout: 5 });
  }
}
