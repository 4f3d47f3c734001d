import { describe, expect } from 'vitest';
import { notificationCommands } from '../../../src/features/notifications/index.js';
import { runCommand } from '../../support/cli.js';
import { pendingEcho, SECRET, notifyTest as test } from '../../support/notifications.js';

const cli = (services: Parameters<typeof runCommand>[1], words: string[], values = {}) =>
  runCommand(notificationCommands as never, services, words, values);

describe('notifications CLI', () => {
  test('add reads the secret from the variable --secret-env names, and list never prints it', async ({
    services,
  }) => {
    process.env.ATS_TEST_WEBHOOK_SECRET = SECRET;
    try {
      const added = await cli(services, ['notifications', 'add', 'slack'], {
        url: 'https://hooks.example/services/x',
        kind: 'chat_webhook',
        events: 'approval_requested,call_decided',
        'console-url': 'https://console.example/',
        'secret-env': 'ATS_TEST_WEBHOOK_SECRET',
      });
      expect(added.code).toBe(0);
      const [target] = await services.notifications.targets.list();
      expect(target).toMatchObject({
        kind: 'CHAT_WEBHOOK',
        events: ['APPROVAL_REQUESTED', 'CALL_DECIDED'],
        consoleUrl: 'https://console.example',
        secret: SECRET,
      });
      const listed = await cli(services, ['notifications', 'list']);
      expect(listed.out).toEqual([
        `${target!.id}  slack  chat_webhook  APPROVAL_REQUESTED,CALL_DECIDED  signed  links to https://console.example`,
      ]);
      expect([...added.out, ...listed.out].join('\n')).not.toContain(SECRET);
    } finally {
      delete process.env.ATS_TEST_WEBHOOK_SECRET;
    }
  });

  test('deliveries lists what was sent to a target; remove takes the target and its deliveries away', async ({
    services,
    run,
    receiver,
  }) => {
    await cli(services, ['notifications', 'add', 'ops'], { url: receiver.url, events: 'APPROVAL_REQUESTED' });
    const call = await pendingEcho(services, run);
    await services.notifier.sweep();
    const listed = await cli(services, ['notifications', 'deliveries'], { target: 'ops' });
    expect(listed.out).toEqual([
      expect.stringMatching(
        new RegExp(`  APPROVAL_REQUESTED  call ${call.id}  DELIVERED  attempts 1  HTTP 200$`),
      ),
    ]);
    expect((await cli(services, ['notifications', 'remove', 'ops'])).out).toEqual(['removed ops']);
    expect(await services.notifications.deliveries({})).toEqual([]);
  });

  test('an unknown kind or event is a usage error naming the choices', async ({ services }) => {
    await expect(
      cli(services, ['notifications', 'add', 'x'], { url: 'https://a.example', kind: 'email' }),
    ).rejects.toThrow('--kind must be one of webhook, chat_webhook');
    await expect(
      cli(services, ['notifications', 'add', 'x'], { url: 'https://a.example', events: 'everything' }),
    ).rejects.toThrow(
      '--events takes a comma list of APPROVAL_REQUESTED, APPROVAL_EXPIRING, CALL_DECIDED, not everything',
    );
  });
});
