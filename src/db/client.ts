import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { CommitHooks, type CommitTopic } from './commits.js';
import { type PipelinedTransaction, pipelinedBegin } from './pipelined-begin.js';

/**
 * Without the schema: Drizzle would build a relational query builder for every table on every
 * transaction and savepoint (about 5% of an append's CPU), and nothing here uses `db.query`.
 */
export type Db = PgDatabase<PgQueryResultHKT>;
type DbDriver = 'pglite' | 'postgres';

interface Listener {
  /** Called after the LISTEN is (re-)established; events sent while it was down are lost, so re-read here. */
  onListen?: () => void;
  onNotify: (payload: string) => void;
}

export interface Database {
  readonly driver: DbDriver;
  readonly db: Db;
  listen(channel: string, listener: Listener): Promise<() => Promise<void>>;
  /** Runs `listener` after each commit of a transaction that touched `topic` (see commits.ts). */
  onCommit(topic: CommitTopic, listener: () => Promise<void> | void): () => void;
  /** Waits for what the commits' listeners started, then closes. */
  close(): Promise<void>;
}

export type DatabaseOptions =
  | { driver: 'postgres'; url: string; max?: number }
  | { driver: 'pglite'; dataDir?: string; loadDataDir?: Blob | File; wasmModule?: WebAssembly.Module };

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.driver === 'postgres' ? openPostgres(options.url, options.max) : openPglite(options);
}

function openPostgres(url: string, max = 10): Database {
  const sql = postgres(url, {
    max,
    onnotice: () => {},
    connection: { application_name: 'agent-tool-system' },
  });
  const db = drizzlePostgres({ client: preparedStatements(sql) }) as unknown as Db;
  const hooks = new CommitHooks();
  hooks.install(db);
  return {
    driver: 'postgres',
    db,
    onCommit: (topic, listener) => hooks.on(topic, listener),
    async listen(channel, listener) {
      const sub = await sql.listen(channel, listener.onNotify, listener.onListen);
      return () => sub.unlisten();
    },
    async close() {
      await hooks.settled();
      await sql.end({ timeout: 5 });
    },
  };
}

/**
 * Drizzle runs every query unnamed (it asks postgres.js to prepare only a query given a name), and
 * postgres.js sends an unnamed query that has parameters in two round trips: Parse and Describe,
 * then, with the parameter types the server answered, Bind and Execute. Prepared, a statement is
 * described once per connection and costs one round trip afterwards: a call's transaction of five
 * statements makes five round trips instead of eight. Each connection keeps the statements it has
 * prepared; postgres.js retires a connection after 30 to 60 minutes, which bounds them. A
 * transaction sends its BEGIN with its first statement (pipelined-begin.ts), its queries prepared too.
 */
function preparedStatements(sql: postgres.Sql): postgres.Sql {
  return new Proxy(sql, {
    get(target, property) {
      if (property === 'unsafe') {
        return (
          query: string,
          parameters?: postgres.ParameterOrJSON<never>[],
          options?: postgres.UnsafeQueryOptions,
        ) => target.unsafe(query, parameters, { ...options, prepare: true });
      }
      if (property === 'begin') {
        // Drizzle opens a transaction as `begin(work)` and sets its options with a statement.
        return (work: (tx: PipelinedTransaction) => Promise<unknown>) => pipelinedBegin(target, work);
      }
      return Reflect.get(target, property);
    },
  });
}

async function openPglite(options: {
  dataDir?: string;
  loadDataDir?: Blob | File;
  wasmModule?: WebAssembly.Module;
}): Promise<Database> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const client = await PGlite.create({
    // PGlite loads extensions only when it starts; chat search's migration creates pg_trgm.
    extensions: { pg_trgm },
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    ...(options.wasmModule ? { pgliteWasmModule: options.wasmModule } : {}),
  });
  const db = drizzlePglite({ client }) as unknown as Db;
  const hooks = new CommitHooks();
  hooks.install(db);
  return {
    driver: 'pglite',
    db,
    onCommit: (topic, listener) => hooks.on(topic, listener),
    async listen(channel, listener) {
      // PGlite is one in-process connection: a LISTEN is never dropped, so onListen fires once.
      const unlisten = await client.listen(channel, listener.onNotify);
      listener.onListen?.();
      return unlisten;
    },
    async close() {
      await hooks.settled();
      await client.close();
    },
  };
}
