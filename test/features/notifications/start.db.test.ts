import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import {
  pendingEcho,
  RETRY,
  startNotifyingServices,
  notifyTest as test,
  twoNotifyingProcessesTest,
} from '../../support/notifications.js';
import { heard } from '../../support/other-process.js';

function addTarget(services: Services, url: string, name = 'ops') {
  return services.notifications.targets.create(
    { name, kind: 'WEBHOOK', url: `${url}/${name}`, events: ['APPROVAL_REQUESTED'] },
    'admin:test',
  );
}

describe('where a target starts', () => {
  twoNotifyingProcessesTest(
    'a target created on one process is told by another of the calls after it, none from before',
    async ({ services, other, run, receiver }) => {
      await services.notifier.stop();
      await pendingEcho(services, run, 'before');
      // The other process has looked: no target is enabled, so it left the call behind its cursor.
      await other.notifier.sweep();
      const known = heard(other, 'notification-targets');
      await addTarget(services, receiver.url);
      await known;
      const after = await pendingEcho(services, run, 'after');
      await other.notifier.sweep();
      expect(receiver.received.map((r) => r.json.call.id)).toEqual([after.id]);
    },
  );

  test('a target enabled again while none was is told only of the calls after it', async ({
    services,
    run,
    receiver,
  }) => {
    const target = await addTarget(services, receiver.url);
    await services.notifications.targets.update(target.id, { enabled: false }, 'admin:test');
    await pendingEcho(services, run, 'while off');
    await services.notifier.sweep();
    await services.notifications.targets.update(target.id, { enabled: true }, 'admin:test');
    const after = await pendingEcho(services, run, 'after');
    await services.notifier.sweep();
    expect(receiver.received.map((r) => r.json.call.id)).toEqual([after.id]);
  });

  test('a target added while another is enabled moves no one’s cursor: nothing the other is owed is skipped', async ({
    services,
    run,
    receiver,
    clock,
  }) => {
    await addTarget(services, receiver.url, 'first');
    await services.notifier.stop();
    const owed = await pendingEcho(services, run, 'owed');
    // As before targets were cached: what is not yet enqueued goes to every target enabled then.
    await addTarget(services, receiver.url, 'second');
    const restarted = await startNotifyingServices(services.database, clock);
    try {
      await restarted.notifier.sweep();
    } finally {
      await restarted.stop();
    }
    expect(receiver.received.map((r) => [r.path, r.json.call.id]).sort()).toEqual(
      [
        ['/first', owed.id],
        ['/second', owed.id],
      ].sort(),
    );
  });

  test('saving the only enabled target as enabled again moves no cursor: nothing it is owed is skipped', async ({
    services,
    run,
    receiver,
    clock,
  }) => {
    const target = await addTarget(services, receiver.url);
    await services.notifier.stop();
    const owed = await pendingEcho(services, run, 'owed');
    await services.notifications.targets.update(target.id, { enabled: true }, 'admin:test');
    const restarted = await startNotifyingServices(services.database, clock);
    try {
      await restarted.notifier.sweep();
    } finally {
      await restarted.stop();
    }
    expect(receiver.received.map((r) => r.json.call.id)).toEqual([owed.id]);
  });

  test('a delivery left pending when its target is disabled is still retried on the timer', async ({
    services,
    run,
    receiver,
    clock,
  }) => {
    const target = await addTarget(services, receiver.url);
    receiver.answerNext(500);
    await pendingEcho(services, run);
    await services.notifier.sweep();
    await services.notifications.targets.update(target.id, { enabled: false }, 'admin:test');
    clock.advance(RETRY.baseDelayMs);
    await services.notifier.sweep();
    expect(receiver.received.map((r) => r.answeredWith)).toEqual([500, 200]);
    const [delivery] = await services.notifications.deliveries({ targetId: target.id });
    expect(delivery).toMatchObject({ status: 'DELIVERED', attempts: 2 });
  });
});
