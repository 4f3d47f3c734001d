import { join } from 'node:path';
import { type Database, openDatabase } from '../db/client.js';
import { openPgliteData } from '../db/template.js';
import type { Config } from './config.js';

/** Postgres at DATABASE_URL when it is set, else the embedded PGlite in DATA_DIR/pgdata. */
export function openConfiguredDatabase(config: Config): Promise<Database> {
  return config.databaseUrl
    ? openDatabase({ driver: 'postgres', url: config.databaseUrl })
    : openPgliteData(join(config.dataDir, 'pgdata'));
}
