import { eq, sql } from 'drizzle-orm';
import { describe, expect, vi } from 'vitest';
import type { Services } from '../../src/app/services.js';
import { toolCalls } from '../../src/calls/tables.js';
import { rowsOf } from '../../src/db/tx.js';
import { runTest as test } from '../support/fixtures.js';
import { agent, eventTypes, waitFor } from '../support/lifecycle.js';

/**
 * Issue 27: a call its requester runs at once is written already STARTED, under this process's
 * lease, by the request's own transaction: no claim transaction follows. Postgres stamps each row
 * with the transaction that wrote it (`xmin`), which is what these tests read.
 */

const eventWriters = async (services: Services, callId: string) =>
  rowsOf<{ type: string; xmin: string }>(
    await services.database.db.execute(
      sql`select type, xmin::text from journal_events where call_id = ${callId} order by seq`,
    ),
  );

const startedCall = (services: Services, runId: string) =>
  waitFor(async () => {
    const [row] = await services.database.db.select().from(toolCalls).where(eq(toolCalls.runId, runId));
    return row?.status === 'STARTED' && row;
  });

describe('eager start of a call its requester runs', () => {
  test('an auto-allowed call is requested and started in one transaction, then lands', async ({
    services,
    run,
  }) => {
    const call = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 'hi' } },
      agent,
    );
    expect(call).toMatchObject({ status: 'COMPLETED', attempts: 1, leaseOwner: null });
    const events = await eventWriters(services, call.id);
    expect(events.map((e) => e.type)).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'tool_call_completed',
    ]);
    // The request and the start commit together; the landing is the only other transaction.
    expect(events[0]!.xmin).toBe(events[1]!.xmin);
    expect(new Set(events.map((e) => e.xmin)).size).toBe(2);
  });

  test('its tool is given the run the request locked, not a run read again', async ({ services, run }) => {
    const reads = vi.spyOn(services.runs, 'get');
    const call = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 'hi' } },
      agent,
    );
    expect(call.status).toBe('COMPLETED');
    expect(reads).not.toHaveBeenCalled();
  });

  test('while it runs it holds this process’s lease, as a claimed call does', async ({ services, run }) => {
    const pending = services.calls.request(
      { runId: run.id, name: 'test.sleep', arguments: { ms: 300 } },
      agent,
    );
    const started = await startedCall(services, run.id);
    expect(started).toMatchObject({ attempts: 1, leaseOwner: services.dispatcher.workerId });
    expect(started.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now());
    expect(await pending).toMatchObject({ status: 'COMPLETED', attempts: 1 });
  });

  test('an outcome that comes back after the call was cancelled is discarded, not journaled', async ({
    services,
    run,
  }) => {
    const pending = services.calls.request(
      { runId: run.id, name: 'test.sleep', arguments: { ms: 500 } },
      agent,
    );
    const started = await startedCall(services, run.id);
    await services.runs.cancel(run.id, agent);
    expect(await pending).toMatchObject({ id: started.id, status: 'CANCELLED' });
    const types = await eventTypes(services, { callId: started.id });
    expect(types.slice(0, 2)).toEqual(['tool_call_requested', 'tool_call_started']);
    expect(types).not.toContain('tool_call_completed');
    expect(await services.calls.get(started.id)).toMatchObject({ status: 'CANCELLED' });
  });

  test('a process killed after the request committed leaves a call lease recovery takes back', async ({
    services,
    run,
  }) => {
    void services.calls
      .request({ runId: run.id, name: 'test.sleep', arguments: { ms: 2_000 } }, agent)
      .catch(() => {});
    const started = await startedCall(services, run.id);
    // What the killed process left: its lease, run out, under an owner that no longer renews it.
    await services.database.db
      .update(toolCalls)
      .set({ leaseOwner: 'worker-gone', leaseExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(toolCalls.id, started.id));
    expect(await services.dispatcher.recoverExpiredLeases()).toBe(1);
    // test.sleep is idempotent: requeued for another attempt, exactly as a claimed call would be.
    expect(await services.calls.get(started.id)).toMatchObject({ status: 'APPROVED', leaseOwner: null });
    expect(await eventTypes(services, { callId: started.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'tool_call_requeued',
    ]);
  });
});
