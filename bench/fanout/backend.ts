import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { createLogger } from '../../src/app/logger.js';
import { createAppServer } from '../../src/app/server.js';
import { createServices } from '../../src/app/services.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { adminPrincipal, noTool } from '../lifecycle/bench-tools.js';

export interface Backend {
  label: string;
  database: Database;
  /** The database's own URL (Postgres only), for extra connections such as the ceiling's writers. */
  url: string | null;
  endpoint: string;
  adminSecret: string;
  /** An agent token of user `bench-user`, for the calls of the append ceiling. */
  agentSecret: string;
  close(): Promise<void>;
}

/**
 * A server on a database of its own: a fresh PGlite directory, or a database created for this run
 * next to the one `DATABASE_URL` names (and dropped after), so the 100,000 replay events never land
 * in a database someone else uses.
 */
export async function openBackend(driver: 'pglite' | 'postgres', baseUrl?: string): Promise<Backend> {
  const dir = mkdtempSync(join(tmpdir(), 'ats-fanout-'));
  let url: string | null = null;
  let dropDatabase = async () => {};
  if (driver === 'postgres') {
    const name = `ats_bench_fanout_${process.pid}`;
    const admin = postgres(baseUrl!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${name}`);
    await admin.unsafe(`create database ${name}`);
    const parsed = new URL(baseUrl!);
    parsed.pathname = `/${name}`;
    url = parsed.toString();
    dropDatabase = async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    };
  }
  const database = url
    ? await openDatabase({ driver: 'postgres', url, max: 40 })
    : await openDatabase({ driver: 'pglite', dataDir: join(dir, 'pgdata') });
  await runMigrations(database, url ?? undefined);
  const services = createServices(database, createLogger('silent'), { extraTools: [noTool('bench.noop')] });
  await services.start();
  const server = createAppServer(services);
  const address = await server.listen(0, '127.0.0.1');
  const admin = await services.tokens.create({ name: 'bench', role: 'ADMIN' });
  const agent = await services.tokens.create({ name: 'bench-agent', role: 'AGENT', userId: 'bench-user' });
  await services.policy.set(
    { layer: 'PLATFORM', toolPattern: 'bench.noop', effect: 'ALLOW' },
    adminPrincipal(admin.token.id),
  );
  return {
    label: driver === 'postgres' ? 'Postgres' : 'PGlite',
    database,
    url,
    endpoint: `http://127.0.0.1:${address.port}/graphql`,
    adminSecret: admin.secret,
    agentSecret: agent.secret,
    async close() {
      await server.close();
      await services.stop();
      await database.close();
      await dropDatabase();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
