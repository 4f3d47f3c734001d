import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { type Database, openDatabase } from './client.js';
import { runMigrations } from './migrate.js';

/**
 * An empty, migrated PGlite data directory, dumped by `npm run build:server` (scripts/build-server.mjs).
 * A fresh start loads it instead of running initdb and every migration, which takes seconds; the
 * migrations that are newer than the dump still run at start. From src/ and dist/ alike it is dist/'s.
 */
export const pgliteTemplatePath = fileURLToPath(new URL('../../dist/pglite-template.tar', import.meta.url));

/** Migrates an in-memory PGlite and writes its data directory to `path` (uncompressed: loading is then a copy). */
export async function writePgliteTemplate(path: string): Promise<void> {
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
 * Opens PGlite in `dataDir`; a directory without a database starts from the template when there is
 * one (a checkout run through tsx before any build has none, and runs initdb).
 */
export async function openPgliteData(dataDir: string, template = pgliteTemplatePath): Promise<Database> {
  const fresh = !existsSync(join(dataDir, 'PG_VERSION')) && existsSync(template);
  return openDatabase({
    driver: 'pglite',
    dataDir,
    ...(fresh ? { loadDataDir: new Blob([readFileSync(template)]) } : {}),
  });
}
