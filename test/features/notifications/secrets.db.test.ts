import { describe, expect } from 'vitest';
import { createLogger } from '../../../src/app/logger.js';
import { createServices, type Services } from '../../../src/app/services.js';
import { admin } from '../../support/lifecycle.js';
import {
  CREATE_TARGET,
  notificationOptions,
  notifyTest,
  pendingEcho,
  SECRET,
} from '../../support/notifications.js';
import { testTools } from '../../support/test-tools.js';

/** The services log at trace level into `lines`, so the test can read everything they wrote. */
const test = notifyTest.extend<{ lines: string[]; services: Services }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads the destructuring to learn a fixture's dependencies.
  lines: async ({}, use) => use([]),
  services: async ({ testDb, clock, lines }, use) => {
    const logger = createLogger('trace', { write: (line: string) => void lines.push(line) });
    const services = createServices(testDb.database, logger, {
      extraTools: testTools,
      ...notificationOptions(clock),
    });
    await services.start();
    await use(services);
    await services.stop();
  },
});

/** A chat webhook's URL is its credential, so the path is treated like the secret. */
const URL_SECRET = 'T0000-B0000-url-credential';

describe('the signing secret is write-only', () => {
  test('never shown by the API, the journal or the logs, through a retried and a delivered attempt', async ({
    services,
    run,
    receiver,
    gql,
    lines,
    clock,
  }) => {
    const created = await gql(CREATE_TARGET, {
      input: {
        name: 'ops',
        kind: 'WEBHOOK',
        url: `${receiver.url}/services/${URL_SECRET}`,
        events: ['APPROVAL_REQUESTED', 'CALL_DECIDED'],
        secret: SECRET,
      },
    });
    expect(created.errors).toBeUndefined();
    expect(created.data!.createNotificationTarget.hasSecret).toBe(true);
    receiver.answerNext(500);
    const call = await pendingEcho(services, run);
    await services.notifier.sweep();
    clock.advance(60_000);
    await services.notifier.sweep();
    await services.calls.approve(call.id, {}, admin);
    await services.notifier.sweep();
    expect(receiver.received.map((r) => r.answeredWith)).toEqual([500, 200, 200]);

    const api = await gql(`{
      notificationTargets { id name kind url events consoleUrl hasSecret enabled createdAt }
      notificationDeliveries { id targetId event callId status attempts lastStatusCode lastError nextAttemptAt deliveredAt createdAt }
    }`);
    expect(api.errors).toBeUndefined();
    expect(JSON.stringify(api)).not.toContain(SECRET);
    const journal = JSON.stringify(await services.journal.read({ limit: 1000 }), (_key, value) =>
      typeof value === 'bigint' ? value.toString() : value,
    );
    expect(journal).toContain('notification_delivered');
    expect(journal).toContain('notification_target_changed');
    expect(journal).not.toContain(SECRET);
    expect(journal).not.toContain(URL_SECRET);
    expect(lines.join('')).toContain('notification failed; will retry');
    expect(lines.join('')).not.toContain(SECRET);
    expect(lines.join('')).not.toContain(URL_SECRET);
  });

  test('an update without a secret keeps it, null removes it', async ({ services, gql }) => {
    const created = await gql(CREATE_TARGET, {
      input: {
        name: 'ops',
        kind: 'WEBHOOK',
        url: 'https://hooks.example/a',
        events: ['CALL_DECIDED'],
        secret: SECRET,
      },
    });
    const id = created.data!.createNotificationTarget.id;
    const UPDATE = `mutation($id: ID!, $input: UpdateNotificationTargetInput!) {
      updateNotificationTarget(id: $id, input: $input) { url hasSecret }
    }`;
    expect((await gql(UPDATE, { id, input: { url: 'https://hooks.example/b' } })).data).toEqual({
      updateNotificationTarget: { url: 'https://hooks.example/b', hasSecret: true },
    });
    expect((await services.notifications.targets.get(id))!.secret).toBe(SECRET);
    expect((await gql(UPDATE, { id, input: { secret: null } })).data).toEqual({
      updateNotificationTarget: { url: 'https://hooks.example/b', hasSecret: false },
    });
  });

  test('bad input is refused with what is wrong, and nothing is saved', async ({ services, gql }) => {
    const res = await gql(CREATE_TARGET, {
      input: { name: 'Ops!', kind: 'WEBHOOK', url: 'ftp://x', events: [], secret: 'short' },
    });
    expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(res.errors![0]!.message).toMatch(/name/);
    expect(await services.notifications.targets.list()).toEqual([]);
    await gql(CREATE_TARGET, {
      input: { name: 'ops', kind: 'WEBHOOK', url: 'https://a.example', events: ['CALL_DECIDED'] },
    });
    const twice = await gql(CREATE_TARGET, {
      input: { name: 'ops', kind: 'WEBHOOK', url: 'https://b.example', events: ['CALL_DECIDED'] },
    });
    expect(twice.errors![0]!.extensions!.code).toBe('CONFLICT');
  });
});
