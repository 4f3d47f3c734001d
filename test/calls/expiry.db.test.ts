import { sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import type { Services } from '../../src/app/services.js';
import { expireApprovals } from '../../src/calls/lifecycle/approvals.js';
import { dbTest } from '../support/fixtures.js';
import {
  admin,
  agent,
  allow,
  approver,
  eventTypes,
  newRun,
  resultText,
  waitFor,
} from '../support/lifecycle.js';
import { take } from '../support/people.js';
import { startServices } from '../support/services.js';

/** The warning comes 1 s before expiry, so a call held for 1.5 s is warned half a second in. */
const WARNING_MS = 1_000;

const test = dbTest.extend<{ services: Services }>({
  services: async ({ testDb }, use) => {
    const services = await startServices(testDb.database, { approvalExpiryWarningMs: WARNING_MS });
    await use(services);
    await services.stop();
  },
});

/** test.echo needs approval, and nobody has longer than `approvalTimeoutMs` to decide. */
async function askingRun(services: Services, approvalTimeoutMs: number) {
  await allow(services, 'test.*', { budget: { approvalTimeoutMs } });
  await services.policy.set({ layer: 'USER', scopeId: 'u1', toolPattern: 'test.echo', effect: 'ASK' }, admin);
  return newRun(services);
}

const echo = (services: Services, runId: string, text = 'x') =>
  services.calls.request({ runId, name: 'test.echo', arguments: { text } }, agent);

/** As if the servers were down until after the call's expiry. */
const pastExpiry = (services: Services, callId: string) =>
  services.database.db.execute(
    sql`update tool_calls set approval_expires_at = now() - interval '1 second' where id = ${callId}`,
  );

const expiredCall = (services: Services, callId: string) =>
  waitFor(async () => {
    const call = await services.calls.get(callId);
    return call?.status === 'EXPIRED' && call;
  });

describe('a pending call nobody decides on in time', () => {
  test('ends EXPIRED, warned once before, and nothing about it is worded as a denial', async ({
    services,
  }) => {
    const run = await askingRun(services, 1_500);
    const held = await echo(services, run.id);
    const expiresAt = held.approvalExpiresAt!;
    const expired = await expiredCall(services, held.id);

    expect(expired.decision).toBeNull();
    expect(expired.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'approval_expired',
      message: 'No one decided in time on the call to test.echo, so it did not run; you may ask again.',
    });
    expect(resultText(expired)).toBe(expired.error!.message);
    expect(expired.result!.structured).toEqual({ error: { kind: 'RECOVERABLE', code: 'approval_expired' } });
    expect(JSON.stringify(expired)).not.toMatch(/denied|denial/i);

    const events = await services.journal.read({ callId: held.id, limit: 10 });
    expect(events.map((e) => e.type)).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_expiring',
      'tool_call_expired',
    ]);
    const [, , expiring, end] = events;
    expect(expiring!.actor).toBe('system');
    expect(expiring!.payload.expiresAt).toBe(expiresAt.toISOString());
    // Within the warning window: not before it opened (a few ms of clock slack), and before the expiry.
    expect(expiring!.at.getTime()).toBeGreaterThanOrEqual(expiresAt.getTime() - WARNING_MS - 50);
    expect(expiring!.at.getTime()).toBeLessThan(expiresAt.getTime());
    expect(expiring!.payload.inMs).toBeGreaterThan(0);
    expect(expiring!.payload.inMs).toBeLessThanOrEqual(WARNING_MS);
    expect(end).toMatchObject({ actor: 'system', payload: { expiresAt: expiresAt.toISOString() } });
  });

  test('is warned exactly once when several sweeps run at the same time', async ({ services }) => {
    // Held 60 s: only the wide windows below reach it, never the services' own 1 s sweep.
    const run = await askingRun(services, 60_000);
    const held = await echo(services, run.id);
    const sweeps = await Promise.all(
      Array.from({ length: 8 }, () => expireApprovals(services.database.db, 120_000)),
    );
    expect(sweeps.reduce((n, s) => n + s.warned, 0)).toBe(1);
    expect(await expireApprovals(services.database.db, 120_000)).toEqual({ expired: 0, warned: 0 });
    expect(await eventTypes(services, { callId: held.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_expiring',
    ]);
  });

  test('is not warned before its window, nor at all with the warning off (0)', async ({ services }) => {
    const run = await askingRun(services, 60_000);
    const held = await echo(services, run.id);
    expect(await expireApprovals(services.database.db, 30_000)).toEqual({ expired: 0, warned: 0 });
    expect(await expireApprovals(services.database.db, 0)).toEqual({ expired: 0, warned: 0 });
    expect(await eventTypes(services, { callId: held.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
    ]);
  });

  test('that ran out before any sweep saw it is warned just before it expires, in the same sweep', async ({
    services,
  }) => {
    const run = await askingRun(services, 60_000);
    const held = await echo(services, run.id);
    await pastExpiry(services, held.id);
    await expiredCall(services, held.id);
    const events = await services.journal.read({ callId: held.id, limit: 10 });
    expect(events.map((e) => e.type)).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_expiring',
      'tool_call_expired',
    ]);
    expect(events[2]!.payload.inMs).toBe(0);
  });

  test('cannot be decided once expired: CONFLICT naming EXPIRED', async ({ services }) => {
    const run = await askingRun(services, 50);
    const held = await echo(services, run.id);
    await expiredCall(services, held.id);
    await expect(services.calls.deny(held.id, { reason: 'late' }, approver)).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { status: 'EXPIRED' },
    });
  });

  test('does not block an identical call, which asks again', async ({ services }) => {
    const run = await askingRun(services, 50);
    const first = await echo(services, run.id);
    await expiredCall(services, first.id);
    const again = await echo(services, run.id);
    expect(again.status).toBe('AWAITING_APPROVAL');
    expect(await eventTypes(services, { callId: again.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
    ]);
  });

  test('after a denial that allowed a retry, an expired retry does not turn into a refusal', async ({
    services,
  }) => {
    await allow(services, 'test.*');
    await services.policy.set(
      { layer: 'USER', scopeId: 'u1', toolPattern: 'test.echo', effect: 'ASK' },
      admin,
    );
    const run = await newRun(services);
    const first = await echo(services, run.id);
    await services.calls.deny(first.id, { allowRetry: true }, approver);
    const retry = await echo(services, run.id);
    await pastExpiry(services, retry.id);
    await expiredCall(services, retry.id);
    expect((await echo(services, run.id)).status).toBe('AWAITING_APPROVAL');
  });

  test('leaves the approval queue', async ({ services }) => {
    const run = await askingRun(services, 1_500);
    const held = await echo(services, run.id);
    const queue = services.approvalQueue.events(approver, null)[Symbol.asyncIterator]();
    try {
      const events = await take(queue, 3);
      expect(events.map((e) => [e.kind, e.call?.id ?? null, e.pending])).toEqual([
        ['ENTERED', held.id, 1],
        ['SNAPSHOT_END', null, 1],
        ['LEFT', held.id, 0],
      ]);
      expect(events[2]!.call!.status).toBe('EXPIRED');
    } finally {
      await queue.return?.();
    }
  });

  test('is an ended call: its run completes with it EXPIRED', async ({ services }) => {
    const run = await askingRun(services, 50);
    const held = await echo(services, run.id);
    await expiredCall(services, held.id);
    expect((await services.runs.complete(run.id, agent)).status).toBe('COMPLETED');
    expect((await services.calls.get(held.id))!.status).toBe('EXPIRED');
    expect(await eventTypes(services, { runId: run.id })).toEqual([
      'run_started',
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_expiring',
      'tool_call_expired',
      'run_completed',
    ]);
  });

  test('is counted as EXPIRED, and its wait as expired, in the metrics', async ({ services }) => {
    const run = await askingRun(services, 50);
    const held = await echo(services, run.id);
    await expiredCall(services, held.id);
    const labels = { tool: 'test.echo', source: 'BUILT_IN', status: 'EXPIRED' };
    await waitFor(async () => {
      const { values } = await services.metrics.toolCalls.get();
      return values.some((v) => v.labels.status === 'EXPIRED');
    });
    expect((await services.metrics.toolCalls.get()).values).toEqual([{ labels, value: 1 }]);
    const waits = (await services.metrics.approvalWait.get()).values.filter((v) =>
      v.metricName?.endsWith('_count'),
    );
    expect(waits).toEqual([
      expect.objectContaining({ labels: { tool: 'test.echo', outcome: 'expired' }, value: 1 }),
    ]);
  });
});
