import { rmSync, writeFileSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { type Database, openDatabase } from './client.js';
import { runMigrations } from './migrate.js';
import { type PgliteFiles, pgliteTemplatePath, preparePgliteFiles } from './pglite-files.js';

export { pgliteTemplatePath };

/**
 * The buffer pool of an embedded database. Postgres in PGlite touches its whole pool when it starts:
 * initdb's 128MB was about 300 ms of every start (a third of opening the database), where 32MB
 * holds this server's working set. Pages beyond it are read through Emscripten's file system, as a
 * server's are through the kernel's page cache, and a sequential scan of a large table keeps to a
 * small ring of buffers whatever the pool's size. It also keeps 96MB out of the server's memory.
 */
export const PGLITE_SHARED_BUFFERS = '32MB';

/** Settings of the data directory itself (postgresql.auto.conf), which every copy of it starts with. */
async function configure(database: Database): Promise<void> {
  await database.db.execute(sql.raw(`alter system set shared_buffers = '${PGLITE_SHARED_BUFFERS}'`));
}

/** Migrates PGlite in `dir` (replacing what was there) and shuts it down cleanly, ready to be copied. */
export async function writePgliteTemplate(dir: string): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  const database = await openDatabase({ driver: 'pglite', dataDir: dir });
  try {
    await runMigrations(database);
    await configure(database);
  } finally {
    await database.close();
  }
}

/**
 * Migrates an in-memory PGlite and writes its data directory to `path` as an uncompressed tar: what
 * the tests load into in-memory databases (`loadDataDir`), which have no directory to copy into.
 */
export async function dumpMigratedPglite(path: string): Promise<void> {
  const database = await openDatabase({ driver: 'pglite' });
  try {
    await runMigrations(database);
    await configure(database);
    const client = (database.db as unknown as { $client: PGlite }).$client;
    const dump = await client.dumpDataDir('none');
    writeFileSync(path, Buffer.from(await dump.arrayBuffer()));
  } finally {
    await database.close();
  }
}

/**
 * Opens PGlite in `dataDir`; a directory without a database starts as a copy of the template
 * (pglite-files.ts). `files` is that preparation when the caller started it earlier.
 */
export async function openPgliteData(
  dataDir: string,
  template = pgliteTemplatePath,
  files: Promise<PgliteFiles> = preparePgliteFiles(dataDir, template),
): Promise<Database> {
  const { wasmModule } = await files;
  return openDatabase({ driver: 'pglite', dataDir, wasmModule });
}
