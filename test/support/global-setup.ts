import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { dumpMigratedPglite } from '../../src/db/template.js';
import { testPostgresUrl, withDatabase } from './env.js';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * One migrated template per run: PGlite's initdb costs seconds and ~800 MB, so every test
 * database boots from a dumped, migrated data dir; real Postgres clones a template database.
 */
export default async function setup(project: TestProject) {
  const driver = project.name === 'postgres' ? 'postgres' : 'pglite';
  project.provide('driver', driver);
  const stdioServer = bundleStdioServer(project);
  const teardown = await (driver === 'pglite' ? pgliteTemplate(project) : postgresTemplate(project));
  return async () => {
    await teardown?.();
    rmSync(stdioServer, { recursive: true, force: true });
  };
}

/**
 * The stdio MCP test server, bundled once to plain JS: started with `--import tsx` every spawn
 * compiled it again (0.57 s against 0.22 s per start). It sits inside the checkout so that its
 * packages resolve from node_modules; one folder per project, as both db projects run at once.
 */
function bundleStdioServer(project: TestProject): string {
  mkdirSync(join(ROOT, '.test-output'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.test-output', `stdio-${project.name}-`));
  const file = join(dir, 'mcp-stdio-server.mjs');
  execFileSync(join(ROOT, 'node_modules/.bin/esbuild'), [
    join(ROOT, 'test/support/mcp-stdio-server.ts'),
    '--bundle',
    '--platform=node',
    '--format=esm',
    '--packages=external',
    `--outfile=${file}`,
    '--log-level=warning',
  ]);
  project.provide('mcpStdioServer', file);
  return dir;
}

async function pgliteTemplate(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'ats-pglite-'));
  const file = join(dir, 'template.tar');
  await dumpMigratedPglite(file);
  project.provide('pgliteTemplate', file);
  project.provide('postgresTemplate', '');
  project.provide('postgresSkipReason', '');
  return () => rmSync(dir, { recursive: true, force: true });
}

async function postgresTemplate(project: TestProject) {
  const admin = postgres(testPostgresUrl, { max: 1, onnotice: () => {}, connect_timeout: 3 });
  try {
    await admin`select 1`;
  } catch (error) {
    await admin.end({ timeout: 1 }).catch(() => {});
    const reason = `real Postgres at ${testPostgresUrl} did not answer (${(error as Error).message})`;
    if (process.env.REQUIRE_POSTGRES === '1') throw new Error(`REQUIRE_POSTGRES=1 but ${reason}`);
    process.stderr.write(
      `\n⚠ ${reason}: every test of the "postgres" project is SKIPPED. Set TEST_DATABASE_URL to run them.\n\n`,
    );
    project.provide('postgresTemplate', '');
    project.provide('postgresSkipReason', reason);
    project.provide('pgliteTemplate', '');
    return;
  }
  const name = `ats_tmpl_${process.pid}_${Date.now()}`;
  await admin.unsafe(`create database ${name}`);
  const url = withDatabase(testPostgresUrl, name);
  const database = await openDatabase({ driver: 'postgres', url, max: 1 });
  await runMigrations(database, url);
  await database.close();
  project.provide('postgresTemplate', name);
  project.provide('postgresSkipReason', '');
  project.provide('pgliteTemplate', '');
  return async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end({ timeout: 5 });
  };
}
