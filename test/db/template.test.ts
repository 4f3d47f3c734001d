import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { holdsNewestMigration, runMigrations } from '../../src/db/migrate.js';
import { openPgliteData, PGLITE_SHARED_BUFFERS, writePgliteTemplate } from '../../src/db/template.js';

/** PGlite only (no server), so this runs in the unit project; one template is made for the file. */
let dir: string;
let template: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ats-template-'));
  template = join(dir, 'template');
  await writePgliteTemplate(template);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rowsOf = (result: unknown) =>
  ((result as { rows?: unknown[] }).rows ?? (result as unknown[])) as Array<Record<string, unknown>>;

describe('a fresh PGlite data directory', () => {
  test('starts from the template: every migration is already applied, and none runs again', async () => {
    const database = await openPgliteData(join(dir, 'fresh'), template);
    try {
      const applied = rowsOf(
        await database.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`),
      );
      await runMigrations(database);
      const after = rowsOf(
        await database.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`),
      );
      expect(applied[0]!.n).toBeGreaterThan(0);
      expect(after).toEqual(applied);
    } finally {
      await database.close();
    }
  });

  test('starts with the small buffer pool the template was given, as every copy of it does', async () => {
    const database = await openPgliteData(join(dir, 'buffers'), template);
    try {
      const [setting] = rowsOf(await database.db.execute(sql`show shared_buffers`));
      expect(setting).toEqual({ shared_buffers: PGLITE_SHARED_BUFFERS });
    } finally {
      await database.close();
    }
  });

  test('keeps what is written into it: a restart resumes the directory instead of loading the template again', async () => {
    const data = join(dir, 'kept');
    const first = await openPgliteData(data, template);
    await first.db.execute(
      sql`insert into api_tokens (name, role, token_hash) values ('kept', 'ADMIN', 'x')`,
    );
    await first.close();
    const second = await openPgliteData(data, template);
    try {
      const rows = rowsOf(await second.db.execute(sql`select name from api_tokens`));
      expect(rows).toEqual([{ name: 'kept' }]);
    } finally {
      await second.close();
    }
  });
});

describe('the migrations check at start', () => {
  test('finds a copy of the template up to date, and not one whose record is older than the newest migration', async () => {
    const database = await openPgliteData(join(dir, 'behind'), template);
    try {
      expect(await holdsNewestMigration(database.db)).toBe(true);
      await database.db.execute(
        sql`update drizzle.__drizzle_migrations set created_at = created_at - 1
            where created_at = (select max(created_at) from drizzle.__drizzle_migrations)`,
      );
      expect(await holdsNewestMigration(database.db)).toBe(false);
    } finally {
      await database.close();
    }
  });

  test('finds a database that was never migrated not up to date', async () => {
    const database = await openDatabase({ driver: 'pglite' });
    try {
      expect(await holdsNewestMigration(database.db)).toBe(false);
    } finally {
      await database.close();
    }
  });
});
