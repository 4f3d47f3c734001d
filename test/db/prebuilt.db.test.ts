import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { prebuiltInsert } from '../../src/db/prebuilt.js';
import { runs, toolCalls } from '../../src/db/schema.js';
import { rowsOf } from '../../src/db/tx.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(() => testDb.drop());

const insertCall = prebuiltInsert(toolCalls);

describe('an insert built once', () => {
  test('writes the row as the same insert built each time would, and returns it', async () => {
    const db = testDb.database.db;
    const [run] = await db
      .insert(runs)
      .values({ status: 'RUNNING', deniedToolStrategy: 'FAIL_RUN', createdBy: 'prebuilt' })
      .returning();
    const requestedAt = new Date('2026-12-04T20:00:00.123Z');
    const given = {
      runId: run!.id,
      name: 'test.echo',
      arguments: { text: 'hello' },
      argumentsHash: 'h',
      status: 'REQUESTED' as const,
      requestedBy: 'prebuilt',
      requestedAt,
    };
    const [built] = await db
      .insert(toolCalls)
      .values({ ...given, id: randomUUID() })
      .returning();
    const [prebuilt] = await db.transaction((tx) => insertCall(tx, { ...given, id: randomUUID() }));
    // Columns left out get their declared defaults; nullable ones, JSON ones included, are SQL null.
    expect({ ...prebuilt, id: built!.id }).toEqual(built);
    expect(prebuilt).toMatchObject({
      approvals: [],
      caller: 'MODEL',
      attempts: 0,
      result: null,
      requestedAt,
    });
    const nulls = rowsOf<{ n: number }>(
      await db.execute(
        sql`select count(*)::int as n from tool_calls where id = ${prebuilt!.id} and result is null and tool is null`,
      ),
    );
    expect(nulls[0]!.n).toBe(1);
    expect((await db.select().from(toolCalls).where(eq(toolCalls.id, prebuilt!.id)))[0]).toEqual(prebuilt);
  });

  test('needs a value for a column whose default is SQL', async () => {
    await expect(
      insertCall(testDb.database.db, {
        runId: randomUUID(),
        name: 'n',
        arguments: {},
        argumentsHash: 'h',
        status: 'REQUESTED',
        requestedBy: 'prebuilt',
      }),
    ).rejects.toThrow(/needs a value for id: its default is SQL/);
  });
});
