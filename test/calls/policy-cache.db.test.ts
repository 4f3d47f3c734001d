import { sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { policyRules } from '../../src/calls/tables.js';
import { admin, agent, allow, newRun, waitFor } from '../support/lifecycle.js';
import { heard, twoProcessTest as test } from '../support/other-process.js';

/** The policy rules each process keeps in memory: every call request reads them, nothing else changes them behind its back. */
const context = { userId: 'u1', profileId: 'p1', planNodeId: null };
const ruleIds = async (services: {
  policy: { rulesFor(c: typeof context): Promise<Array<{ id: string }>> };
}) => (await services.policy.rulesFor(context)).map((rule) => rule.id);

/** A rule written straight into the table, as nothing in the server does: no process hears of it. */
async function unannounced(services: { database: { db: import('../../src/db/client.js').Db } }) {
  const [row] = await services.database.db
    .insert(policyRules)
    .values({ layer: 'PROFILE', scopeId: 'p1', toolPattern: 'test.*', effect: 'DENY' })
    .returning();
  return row!.id;
}

describe('policy rule cache', () => {
  test('answers from memory once read: a row no one announced is not seen', async ({ services }) => {
    const allowed = await allow(services);
    expect(await ruleIds(services)).toEqual([allowed.id]);
    await unannounced(services);
    expect(await ruleIds(services)).toEqual([allowed.id]);
  });

  test('a rule set on this process is obeyed by its next read', async ({ services }) => {
    expect(await ruleIds(services)).toEqual([]);
    const allowed = await allow(services);
    expect(await ruleIds(services)).toEqual([allowed.id]);
  });

  test("a rule set on another process is obeyed by this one's next call once it has heard of it", async ({
    services,
    other,
  }) => {
    const allowed = await allow(services);
    const run = await newRun(services);
    expect(await ruleIds(services)).toEqual([allowed.id]);
    const hearing = heard(services, 'policy');
    const denied = await other.policy.set(
      { layer: 'PROFILE', scopeId: 'p1', toolPattern: 'test.noop', effect: 'DENY', reason: 'not today' },
      admin,
    );
    await hearing;
    const call = await services.calls.request({ runId: run.id, name: 'test.noop' }, agent);
    expect({ status: call.status, reason: call.policyReason }).toEqual({
      status: 'FAILED',
      reason: `denied by PROFILE rule ${denied.id} (DENY "test.noop"): not today`,
    });
  });

  test('a rule removed on another process is gone from the next read here once it has heard of it', async ({
    services,
    other,
  }) => {
    const allowed = await allow(services);
    expect(await ruleIds(services)).toEqual([allowed.id]);
    const hearing = heard(services, 'policy');
    await other.policy.remove(allowed.id, admin);
    await hearing;
    expect(await ruleIds(services)).toEqual([]);
  });

  test('a transaction that saved a rule reads it before it commits', async ({ services }) => {
    expect(await ruleIds(services)).toEqual([]);
    const seen = await services.database.db.transaction(async (tx) => {
      const rule = await services.policy.set(
        { layer: 'PROFILE', scopeId: 'p1', toolPattern: 'test.*', effect: 'ALLOW' },
        admin,
        tx,
      );
      return { rule: rule.id, read: (await services.policy.rulesFor(context, tx)).map((r) => r.id) };
    });
    expect(seen.read).toEqual([seen.rule]);
  });

  test('a process whose LISTEN connection was cut reads the rules afresh once it is back', async ({
    services,
    testDb,
    skip,
  }) => {
    if (!testDb.url) skip('PGlite is one in-process connection: its LISTEN is never cut');
    expect(await ruleIds(services)).toEqual([]);
    const id = await unannounced(services);
    await services.database.db.execute(sql`
      select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen%'`);
    expect(await waitFor(async () => (await ruleIds(services)).length > 0 && ruleIds(services))).toEqual([
      id,
    ]);
  });
});
