import { rmSync, writeFileSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { type Database, openDatabase } from './client.js';
import { runMigrations } from './migrate.js';
import { type PgliteFiles, pgliteTemplatePath, preparePgliteFiles } from './pglite-files.js';

export { pgliteTemplatePath };

/** Migrates PGlite in `dir` (replacing what was there) and shuts it down cleanly, ready to be copied. */
export async function writePgliteTemplate(dir: string): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  const database = await openDatabase({ driver: 'pglite', dataDir: dir });
  try {
    await runMigrations(database);
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
