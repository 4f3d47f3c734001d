import { createLogger } from '../../src/app/logger.js';
import { createServices, type ServiceOptions, type Services } from '../../src/app/services.js';
import { CredentialKeyRing } from '../../src/bridge/mcp/index.js';
import type { Logger } from '../../src/core/logger.js';
import type { Database } from '../../src/db/client.js';
import { testTools } from './test-tools.js';

/** CREDENTIALS_KEY of the test services: one key, id `t1`. */
export const TEST_CREDENTIALS_KEY = `t1:${Buffer.alloc(32, 7).toString('base64')}`;

/**
 * Started services over a test database, with the test tools and leases and polls short enough
 * that a test waiting on the dispatcher or the bus waits a fraction of a second; `options` add to
 * or replace these.
 */
export async function startServices(
  database: Database,
  options: ServiceOptions = {},
  logger: Logger = createLogger('silent'),
): Promise<Services> {
  const services = createServices(database, logger, {
    extraTools: testTools,
    dispatcher: { leaseMs: 2_000, pollMs: 100, orphanAfterMs: 1_000, defaultTimeoutMs: 10_000 },
    busPollMs: 200,
    tokenCheckMs: 200,
    credentials: { keys: CredentialKeyRing.parse(TEST_CREDENTIALS_KEY), exchange: null },
    ...options,
  });
  await services.start();
  return services;
}
