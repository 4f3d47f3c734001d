import { join } from 'node:path';
import type { BuiltInTool } from '../calls/tool-contract.js';
import type { Logger } from '../core/logger.js';
import { type Database, openDatabase } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';
import { openPgliteData } from '../db/template.js';
import type { Config } from './config.js';
import { createServices, type Services } from './services.js';

/** Opens the configured database, migrates it and builds the services: everything but the network. */
export async function bootstrap(
  config: Config,
  logger: Logger,
  extraTools: BuiltInTool[] = [],
): Promise<Services> {
  const database: Database = config.databaseUrl
    ? await openDatabase({ driver: 'postgres', url: config.databaseUrl })
    : await openPgliteData(join(config.dataDir, 'pgdata'));
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
