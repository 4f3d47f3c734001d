import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import type { RunRow } from '../../../src/calls/tables.js';
import { admin, waitFor } from '../../support/lifecycle.js';
import { pendingEcho, notifyTest as test, watchedNotifier } from '../../support/notifications.js';

/** Approval requests and decisions: each one a journal batch the notifier is woken for. */
async function burst(services: Services, run: RunRow, count: number) {
  for (let i = 0; i < count; i++) {
    const call = await pendingEcho(services, run, `call ${i}`);
    await services.calls.approve(call.id, {}, admin);
  }
  // Every batch has reached every subscriber, the watched notifier included.
  await services.bus.pull();
}

describe('a notifier with no target enabled', () => {
  test('runs no statement for a burst of approval requests and decisions', async ({
    services,
    run,
    receiver,
    clock,
  }) => {
    const watched = await watchedNotifier(services, clock);
    await burst(services, run, 5);
    await watched.notifier.stop();
    expect(watched.statements).toEqual([]);
    expect(receiver.received).toEqual([]);
  });

  test('runs none either once the last enabled target is disabled', async ({
    services,
    run,
    receiver,
    clock,
  }) => {
    const target = await services.notifications.targets.create(
      // A burst's requests are decided before they are enqueued, so only decisions are sent.
      { name: 'ops', kind: 'WEBHOOK', url: receiver.url, events: ['CALL_DECIDED'] },
      'admin:test',
    );
    // Only the watched notifier sends, woken by the journal (the tests' timer never fires).
    await services.notifier.stop();
    const watched = await watchedNotifier(services, clock);
    await burst(services, run, 2);
    await waitFor(async () => receiver.received.length === 2);

    await services.notifications.targets.update(target.id, { enabled: false }, 'admin:test');
    // The sweep that hears of it learns that no target is enabled and no delivery is pending.
    await watched.notifier.sweep();
    watched.statements.length = 0;
    await burst(services, run, 3);
    await watched.notifier.stop();
    expect(watched.statements).toEqual([]);
    expect(receiver.received).toHaveLength(2);
  });
});
