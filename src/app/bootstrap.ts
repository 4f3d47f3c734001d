import type { BuiltInTool } from '../calls/tool-contract.js';
import type { Logger } from '../core/logger.js';
import type { Database } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';
import type { Config } from './config.js';
import { openConfiguredDatabase } from './database.js';
import { createServices, type Services } from './services.js';

/**
 * Opens the configured database (or takes the one `opening` already started), migrates it and
 * builds the services: everything but the network.
 */
export async function bootstrap(
  config: Config,
  logger: Logger,
  extraTools: BuiltInTool[] = [],
  opening: Promise<Database> = openConfiguredDatabase(config),
): Promise<Services> {
  const database = await opening;
  logger.info({ driver: database.driver }, 'database opened');
  await runMigrations(database, config.databaseUrl);
  const services = createServices(database, logger, {
    dispatcher: { leaseMs: config.leaseMs, defaultTimeoutMs: config.toolTimeoutMs },
    extraTools,
    workspace: config.workspace,
    tokenCheckMs: config.tokenCheckMs,
    busPollMs: config.journalSafetyPollMs,
    approvalExpiryWarningMs: config.approvalExpiryWarningMs,
    linkSecret: config.linkSecret,
    credentials: config.credentials,
    gateway: { holdMs: config.mcpApprovalHoldMs },
    identity: config.identity,
  });
  if (config.adminToken) await services.tokens.ensureAdminToken(config.adminToken);
  return services;
}
