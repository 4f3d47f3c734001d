import { describe, expect } from 'vitest';
import { openDatabase } from '../../../src/db/client.js';
import { claimDue } from '../../../src/features/notifications/deliver.js';
import { enqueueFromJournal } from '../../../src/features/notifications/enqueue.js';
import { defaultNotifierOptions } from '../../../src/features/notifications/index.js';
import { pendingEcho, startNotifyingServices, notifyTest as test } from '../../support/notifications.js';

describe('each notification is sent once', () => {
  test('two processes sweeping at once send every notification exactly once', async ({
    services,
    run,
    receiver,
    testDb,
    clock,
  }) => {
    // On Postgres the other process has connections of its own; PGlite is one connection, shared.
    const otherDb = testDb.url
      ? await openDatabase({ driver: 'postgres', url: testDb.url })
      : testDb.database;
    const other = await startNotifyingServices(otherDb, clock);
    try {
      await services.notifications.targets.create(
        { name: 'ops', kind: 'WEBHOOK', url: receiver.url, events: ['APPROVAL_REQUESTED'] },
        'admin:test',
      );
      const calls = [];
      for (let i = 0; i < 8; i++) calls.push(await pendingEcho(services, run, `call ${i}`));
      await Promise.all([
        services.notifier.sweep(),
        other.notifier.sweep(),
        services.notifier.sweep(),
        other.notifier.sweep(),
      ]);
      const sent = receiver.received.map((r) => r.json.call.id).sort();
      expect(sent).toEqual(calls.map((c) => c.id).sort());
      const deliveries = await services.notifications.deliveries({});
      expect(deliveries.map((d) => [d.status, d.attempts])).toEqual(calls.map(() => ['DELIVERED', 1]));
      const journaled = await services.journal.read({ runId: run.id, limit: 1000 });
      expect(journaled.filter((e) => e.type === 'notification_delivered')).toHaveLength(calls.length);
    } finally {
      await other.stop();
      if (otherDb !== testDb.database) await otherDb.close();
    }
  });

  test('a call requested while no process was sending is notified when one starts: the cursor is stored', async ({
    services,
    run,
    receiver,
    testDb,
    clock,
  }) => {
    await services.notifications.targets.create(
      { name: 'ops', kind: 'WEBHOOK', url: receiver.url, events: ['APPROVAL_REQUESTED'] },
      'admin:test',
    );
    await services.notifier.stop();
    const call = await pendingEcho(services, run);
    expect(receiver.received).toEqual([]);
    const restarted = await startNotifyingServices(testDb.database, clock);
    try {
      await restarted.notifier.sweep();
    } finally {
      await restarted.stop();
    }
    expect(receiver.received.map((r) => r.json.call.id)).toEqual([call.id]);
  });

  test('an attempt claimed by a process that died is made again, once, when its claim runs out', async ({
    services,
    run,
    receiver,
    clock,
  }) => {
    const target = await services.notifications.targets.create(
      { name: 'ops', kind: 'WEBHOOK', url: receiver.url, events: ['APPROVAL_REQUESTED'] },
      'admin:test',
    );
    await services.notifier.stop();
    await pendingEcho(services, run);
    await enqueueFromJournal(services.database.db, services.notifications.links, clock.now());
    // The dead process claimed the delivery and never sent it: only its claim is left.
    const [claimed] = await claimDue(services.database.db, clock.now(), defaultNotifierOptions);
    expect(claimed!.delivery.attempts).toBe(1);
    const survivor = await startNotifyingServices(services.database, clock);
    try {
      await survivor.notifier.sweep();
      expect(receiver.received).toEqual([]);
      clock.advance(defaultNotifierOptions.claimMs);
      await survivor.notifier.sweep();
      await survivor.notifier.sweep();
    } finally {
      await survivor.stop();
    }
    expect(receiver.received).toHaveLength(1);
    const [delivery] = await services.notifications.deliveries({ targetId: target.id });
    expect(delivery).toMatchObject({ status: 'DELIVERED', attempts: 2 });
  });
});
