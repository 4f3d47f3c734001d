import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/client.js';
import { runMigrations } from '../../src/db/migrate.js';
import { dumpMigratedPglite } from '../../src/db/template.js';
import { testPostgresUrl, withDatabase } from './env.js';

/**
 * One migrated template per run: PGlite's initdb costs seconds and ~800 MB, so every test
 * database boots from a dumped, migrated data dir; real Postgres clones a template database.
 */
export default async function setup(project: TestProject) {
  const driver = project.name === 'postgres' ? 'postgres' : 'pglite';
  project.provide('driver', driver);
  return driver === 'pglite' ? pgliteTemplate(project) : postgresTemplate(project);
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
