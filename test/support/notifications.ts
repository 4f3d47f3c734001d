import { createLogger } from '../../src/app/logger.js';
import type { ServiceOptions, Services } from '../../src/app/services.js';
import type { RunRow } from '../../src/calls/tables.js';
import { type Database, type Db, openDatabase } from '../../src/db/client.js';
import { defaultNotifierOptions, Notifier } from '../../src/features/notifications/index.js';
import { runTest } from './fixtures.js';
import { admin, agent } from './lifecycle.js';
import { startServices } from './services.js';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.js';

/** A clock the notifier schedules by: it moves only when the test says, so back-off is exact. */
export interface SteppedClock {
  now(): Date;
  advance(ms: number): void;
}

export const RETRY = { maxAttempts: 3, baseDelayMs: 60_000, maxDelayMs: 600_000 };
export const SECRET = 'webhook-secret-0123456789abcdef';

/** What the notification tests build services with: the stepped clock, a short retry ladder, no idle polling. */
export function notificationOptions(clock: SteppedClock): ServiceOptions {
  return { notifications: { now: () => clock.now(), retry: RETRY, pollMs: 3_600_000, timeoutMs: 5_000 } };
}

export function startNotifyingServices(database: Database, clock: SteppedClock): Promise<Services> {
  return startServices(database, notificationOptions(clock));
}

/**
 * `runTest` whose services notify on the stepped clock, a live HTTP receiver on a local port, and
 * test.echo needing a person's approval (so each echo is an APPROVAL_REQUESTED notification).
 */
export const notifyTest = runTest.extend<{
  clock: SteppedClock;
  services: Services;
  receiver: WebhookReceiver;
}>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads the destructuring to learn a fixture's dependencies.
  clock: async ({}, use) => {
    let at = Date.now();
    await use({
      now: () => new Date(at),
      advance: (ms) => {
        at += ms;
      },
    });
  },
  services: async ({ testDb, clock }, use) => {
    const services = await startNotifyingServices(testDb.database, clock);
    await use(services);
    await services.stop();
  },
  receiver: async ({ services }, use) => {
    await services.policy.set(
      { layer: 'USER', scopeId: 'u1', toolPattern: 'test.echo', effect: 'ASK' },
      admin,
    );
    const receiver = await startReceiver();
    await use(receiver);
    await receiver.close();
  },
});

/** `notifyTest` plus `other`: a second server's notifying services over the same database (see twoProcessTest). */
export const twoNotifyingProcessesTest = notifyTest.extend<{ other: Services }>({
  other: async ({ testDb, clock }, use) => {
    const database = testDb.url
      ? await openDatabase({ driver: 'postgres', url: testDb.url, max: 4 })
      : testDb.database;
    const other = await startNotifyingServices(database, clock);
    await use(other);
    await other.stop();
    if (database !== testDb.database) await database.close();
  },
});

/**
 * A notifier like `services`' own, on the stepped clock, whose database handle records the name of
 * every statement or transaction it starts (what is run inside a transaction is the transaction's).
 * Started, its first sweep done and forgotten.
 */
export async function watchedNotifier(services: Services, clock: SteppedClock) {
  const statements: string[] = [];
  const db = new Proxy(services.database.db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        statements.push(String(property));
        return value.apply(target, args);
      };
    },
  }) as Db;
  const notifier = new Notifier(
    {
      db,
      links: services.notifications.links,
      bus: services.bus,
      changes: services.invalidations,
      logger: createLogger('silent'),
    },
    { ...defaultNotifierOptions, ...notificationOptions(clock).notifications },
  );
  await notifier.start();
  await notifier.sweep();
  statements.length = 0;
  return { notifier, statements };
}

/** A call of `run` that waits for approval. */
export function pendingEcho(services: Services, run: RunRow, text = 'hello') {
  return services.calls.request({ runId: run.id, name: 'test.echo', arguments: { text } }, agent);
}

export const CREATE_TARGET = `mutation($input: CreateNotificationTargetInput!) {
  createNotificationTarget(input: $input) { id name kind url events consoleUrl hasSecret enabled }
}`;
