import { sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import type { Services } from '../../src/app/services.js';
import { toolCalls } from '../../src/calls/tables.js';
import { callTimedOut } from '../../src/core/call-results.js';
import { rowsOf } from '../../src/db/tx.js';
import { runTest as test } from '../support/fixtures.js';
import { admin, agent, approver, eventTypes } from '../support/lifecycle.js';

/**
 * Issue 16: a call whose tool keeps its effects in this database commits once: request, policy,
 * the tool's writes, the result and every journal event. Postgres stamps each row with the
 * transaction that wrote it (`xmin`), which is what these tests read.
 */

const writers = async (services: Services, callId: string) => {
  const rows = rowsOf<{ xmin: string }>(
    await services.database.db.execute(sql`
      select xmin::text from journal_events where call_id = ${callId}
      union select xmin::text from tool_calls where id = ${callId}`),
  );
  return new Set(rows.map((r) => r.xmin)).size;
};

const markers = async (services: Services, marker: string) =>
  rowsOf<{ n: number }>(
    await services.database.db.execute(
      sql`select count(*)::int as n from journal_events where payload->>'marker' = ${marker}`,
    ),
  )[0]!.n;

const dbWrite = (runId: string, args: Record<string, unknown>) => ({
  runId,
  name: 'test.db_write',
  arguments: args,
});

/** Runs `body` while the database refuses the writes (`on`) of tool_calls that `when` names. */
async function refusing<T>(
  services: Services,
  refusal: { on: 'insert or update' | 'update'; when: string },
  body: () => Promise<T>,
): Promise<T> {
  const db = services.database.db;
  await db.execute(sql`
    create or replace function refuse_for_test() returns trigger language plpgsql as $$
    begin raise exception 'refused for the test'; end $$`);
  try {
    await db.execute(
      sql.raw(`create trigger refuse_for_test before ${refusal.on} on tool_calls for each row
        when (${refusal.when}) execute function refuse_for_test()`),
    );
    return await body();
  } finally {
    await db.execute(sql`drop trigger if exists refuse_for_test on tool_calls`);
    await db.execute(sql`drop function refuse_for_test()`);
  }
}

/** A test.db_write call its run's user must approve first. */
async function askedFor(services: Services, runId: string, marker: string) {
  await services.policy.set(
    { layer: 'USER', scopeId: 'u1', toolPattern: 'test.db_write', effect: 'ASK' },
    admin,
  );
  return services.calls.request(dbWrite(runId, { marker, outcome: 'ok' }), agent);
}

describe('a call whose tool runs in its transaction', () => {
  test('an allowed call is one transaction: request, tool writes, result and events', async ({
    services,
    run,
  }) => {
    const call = await services.calls.request(dbWrite(run.id, { marker: 'm1', outcome: 'ok' }), agent);
    expect(call.status).toBe('COMPLETED');
    expect(await eventTypes(services, { callId: call.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'workspace_changed',
      'tool_call_completed',
    ]);
    expect(await writers(services, call.id)).toBe(1);
  });

  test('a tool that fails leaves none of its writes, and its failure is recorded', async ({
    services,
    run,
  }) => {
    const call = await services.calls.request(dbWrite(run.id, { marker: 'm2', outcome: 'fail' }), agent);
    expect(call.status).toBe('FAILED');
    expect(call.error).toMatchObject({ kind: 'RECOVERABLE', code: 'no_hits' });
    expect(await markers(services, 'm2')).toBe(0);
    expect(await eventTypes(services, { callId: call.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'tool_call_failed',
    ]);
    expect(await writers(services, call.id)).toBe(1);
  });

  test('a failure while landing the result undoes the whole call: no row, no event, no tool write', async ({
    services,
    run,
  }) => {
    const db = services.database.db;
    // The database refuses the completed call's row, as a full disk or a lost connection would.
    await refusing(services, { on: 'insert or update', when: "new.status = 'COMPLETED'" }, () =>
      expect(
        services.calls.request(dbWrite(run.id, { marker: 'm3', outcome: 'ok' }), agent),
      ).rejects.toMatchObject({ cause: { message: 'refused for the test' } }),
    );
    const calls = await db.select().from(toolCalls).where(sql`${toolCalls.runId} = ${run.id}`);
    expect(calls).toEqual([]);
    expect(await markers(services, 'm3')).toBe(0);
    expect(await eventTypes(services, { runId: run.id })).toEqual(['run_started']);
  });

  test('an allowed call writes its row once, finished, with no update after', async ({ services, run }) => {
    const call = await refusing(services, { on: 'update', when: 'true' }, () =>
      services.calls.request(dbWrite(run.id, { marker: 'm7', outcome: 'ok' }), agent),
    );
    expect(call).toMatchObject({ status: 'COMPLETED', attempts: 1 });
    expect(call.startedAt).not.toBeNull();
    expect(await markers(services, 'm7')).toBe(1);
  });

  test('an approved call updates its row once: approval and result together', async ({ services, run }) => {
    const held = await askedFor(services, run.id, 'm8');
    const done = await refusing(services, { on: 'update', when: "old.status <> 'AWAITING_APPROVAL'" }, () =>
      services.calls.approve(held.id, { argumentsHash: held.argumentsHash }, approver),
    );
    expect(done).toMatchObject({ status: 'COMPLETED', attempts: 1 });
    expect(await markers(services, 'm8')).toBe(1);
  });

  test('a tool past its timeout has its writes rolled back and fails as timed out', async ({
    services,
    run,
  }) => {
    const call = await services.calls.request(
      { runId: run.id, name: 'test.db_slow', arguments: { marker: 'm4', outcome: 'ok', ms: 200 } },
      agent,
    );
    expect(call.status).toBe('FAILED');
    expect(call.error).toEqual(callTimedOut('test.db_slow', 50));
    expect(await markers(services, 'm4')).toBe(0);
  });

  test('an approved call is two transactions: the request, then approval, tool and result', async ({
    services,
    run,
  }) => {
    const held = await askedFor(services, run.id, 'm5');
    expect(held.status).toBe('AWAITING_APPROVAL');
    const done = await services.calls.approve(held.id, { argumentsHash: held.argumentsHash }, approver);
    expect(done.status).toBe('COMPLETED');
    expect(await eventTypes(services, { callId: held.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_approved',
      'tool_call_started',
      'workspace_changed',
      'tool_call_completed',
    ]);
    expect(await writers(services, held.id)).toBe(2);
  });

  test('a started call whose process died is dispatched again, not interrupted', async ({
    services,
    run,
  }) => {
    const held = await askedFor(services, run.id, 'm6');
    // What a process that died mid-call left before calls ran in their transaction: a started
    // call whose lease ran out.
    await services.database.db
      .update(toolCalls)
      .set({ status: 'STARTED', leaseOwner: 'worker-gone', leaseExpiresAt: new Date(Date.now() - 1000) })
      .where(sql`${toolCalls.id} = ${held.id}`);
    expect(await services.dispatcher.recoverExpiredLeases()).toBe(1);
    await services.dispatcher.sweep();
    const done = await services.calls.get(held.id);
    expect(done).toMatchObject({ status: 'COMPLETED', attempts: 1 });
    expect((await services.runs.get(run.id))?.status).toBe('RUNNING');
    expect(await eventTypes(services, { callId: held.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_requeued',
      'tool_call_started',
      'workspace_changed',
      'tool_call_completed',
    ]);
  });
});
