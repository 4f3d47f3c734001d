import { cpSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { type Database, openDatabase } from './client.js';
import { runMigrations } from './migrate.js';

/**
 * An empty, migrated PGlite data directory, made by `npm run build:server` (scripts/build-server.mjs).
 * A fresh start copies it instead of running initdb and every migration, which takes seconds; the
 * migrations that are newer than it still run at start. A directory rather than a tar that PGlite
 * unpacks: copying files is a few tens of milliseconds, unpacking 42 MB in JavaScript half a second.
 * From src/ and dist/ alike it is dist/'s.
 */
export const pgliteTemplatePath = fileURLToPath(new URL('../../dist/pglite-template', import.meta.url));

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
 * Opens PGlite in `dataDir`; a directory without a database starts as a copy of the template when
 * there is one (a checkout run through tsx before any build has none, and runs initdb). The copy is
 * made beside it and renamed into place, so a start killed half-way never leaves half a database.
 */
export async function openPgliteData(dataDir: string, template = pgliteTemplatePath): Promise<Database> {
  if (!existsSync(join(dataDir, 'PG_VERSION')) && existsSync(join(template, 'PG_VERSION'))) {
    const copy = `${dataDir}.copying-${process.pid}`;
    rmSync(copy, { recursive: true, force: true });
    mkdirSync(dirname(copy), { recursive: true });
    cpSync(template, copy, { recursive: true });
    // rename(2) replaces an empty directory, such as one a start killed before the copy left.
    renameSync(copy, dataDir);
  }
  return openDatabase({ driver: 'pglite', dataDir });
}
