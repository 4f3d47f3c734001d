import { asc } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { journalEvents } from '../../src/journal/tables.js';
import { runTest as test } from '../support/fixtures.js';
import { admin, agent, allow, approver, eventTypes, newRun, waitFor } from '../support/lifecycle.js';

// On real Postgres these run on a pool of connections and really race; PGlite has one connection
// and serialises them, so there they check only that the outcome is the same.
describe('races', () => {
  test('50 concurrent approve/deny on one call: one decision, one event', async ({ services, run }) => {
    const held = await services.calls.request({ runId: run.id, name: 'test.dangerous' }, agent);
    const attempts = Array.from({ length: 50 }, (_, i) =>
      i % 2 === 0
        ? services.calls.approve(held.id, { reason: `a${i}` }, approver)
        : services.calls.deny(held.id, { reason: `d${i}` }, admin),
    );
    const settled = await Promise.allSettled(attempts);
    const won = settled.filter((s) => s.status === 'fulfilled');
    const lost = settled.filter((s) => s.status === 'rejected') as PromiseRejectedResult[];
    expect(won).toHaveLength(1);
    expect(lost.map((l) => (l.reason as { code: string }).code)).toEqual(Array(49).fill('CONFLICT'));
    const decisions = (await eventTypes(services, { callId: held.id })).filter(
      (t) => t === 'tool_call_approved' || t === 'tool_call_denied',
    );
    expect(decisions).toHaveLength(1);
  });

  test('concurrent requests cannot overrun the run budget', async ({ services }) => {
    await allow(services);
    const run = await newRun(services, { maxCalls: 5 });
    const calls = await Promise.all(
      Array.from({ length: 20 }, () => services.calls.request({ runId: run.id, name: 'test.noop' }, agent)),
    );
    expect(calls.filter((c) => c.status === 'COMPLETED')).toHaveLength(5);
    expect(calls.filter((c) => c.error?.code === 'budget_exhausted')).toHaveLength(15);
  });

  test('concurrent repeats of one providerCallId make one call', async ({ services, run }) => {
    const calls = await Promise.all(
      Array.from({ length: 10 }, () =>
        services.calls.request({ runId: run.id, name: 'test.noop', providerCallId: 'same' }, agent),
      ),
    );
    expect(new Set(calls.map((c) => c.id)).size).toBe(1);
    await waitFor(async () => (await services.calls.get(calls[0]!.id))?.status === 'COMPLETED');
    expect(
      (await eventTypes(services, { runId: run.id })).filter((t) => t === 'tool_call_started'),
    ).toHaveLength(1);
  });

  test('under concurrent writers a reader of the journal gets every stored event once, in position order', async ({
    services,
  }) => {
    await allow(services);
    const runs = await Promise.all(Array.from({ length: 5 }, () => newRun(services)));
    await Promise.all(
      runs.flatMap((run) =>
        Array.from({ length: 6 }, () => services.calls.request({ runId: run.id, name: 'test.noop' }, agent)),
      ),
    );
    const events = await services.journal.read({ limit: 10_000 });
    const stored = await services.database.db
      .select({ seq: journalEvents.seq })
      .from(journalEvents)
      .orderBy(asc(journalEvents.seq));
    expect(events.map((e) => e.seq)).toEqual(stored.map((r) => r.seq));
    expect(events).toHaveLength(5 + 5 * 6 * 3);
  });
});
