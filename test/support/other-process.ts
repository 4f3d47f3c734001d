import type { Services } from '../../src/app/services.js';
import { openDatabase } from '../../src/db/client.js';
import type { ChangeTopic } from '../../src/journal/invalidations.js';
import { dbTest } from './fixtures.js';
import { startServices } from './services.js';

/**
 * `dbTest` plus `other`: a second server's services over the same database, on a connection of its
 * own on Postgres (its own LISTEN, as another process has); PGlite is one connection, so there it
 * shares it.
 */
export const twoProcessTest = dbTest.extend<{ other: Services }>({
  other: async ({ testDb }, use) => {
    const database = testDb.url
      ? await openDatabase({ driver: 'postgres', url: testDb.url, max: 4 })
      : testDb.database;
    const other = await startServices(database);
    await use(other);
    await other.stop();
    if (database !== testDb.database) await database.close();
  },
});

/**
 * Resolves when `services` next hears a change of `topic`. Another process hears a change when
 * Postgres signals it at commit, not when the writer's answer comes back, so a test in one
 * process waits for that before it asks the other "process".
 */
export function heard(services: Services, topic: ChangeTopic): Promise<void> {
  return new Promise((resolve) => {
    const off = services.invalidations.on(topic, () => {
      off();
      resolve();
    });
  });
}
