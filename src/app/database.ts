import { join } from 'node:path';
import type { Database } from '../db/client.js';
import { preparePgliteFiles } from '../db/pglite-files.js';
import type { Config } from './config.js';

/**
 * Postgres at DATABASE_URL when it is set, else the embedded PGlite in DATA_DIR/pgdata. The
 * database modules (PGlite, Drizzle, postgres.js, the schema) are imported here, not at the top:
 * main.ts calls this before it loads the rest of the server, and PGlite's files (the template's
 * copy, postgres.wasm's compile) are under way on other threads while they load.
 */
export function openConfiguredDatabase(config: Config): Promise<Database> {
  if (config.databaseUrl) {
    const url = config.databaseUrl;
    return import('../db/client.js').then(({ openDatabase }) => openDatabase({ driver: 'postgres', url }));
  }
  const dataDir = join(config.dataDir, 'pgdata');
  const files = preparePgliteFiles(dataDir);
  // Awaited by openPgliteData once the modules are loaded; until then a failure is not unhandled.
  files.catch(() => {});
  return import('../db/template.js').then(({ openPgliteData }) => openPgliteData(dataDir, undefined, files));
}
