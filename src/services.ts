import type { Database } from './db/client.js';
import type { Logger } from './logger.js';
import { PolicyService } from './runtime/policy-service.js';
import { RegistryService } from './runtime/registry-service.js';
import { TokenService } from './runtime/token-service.js';

/** Every service a request may reach, built once per process over one database. */
export interface Services {
  database: Database;
  logger: Logger;
  registry: RegistryService;
  policy: PolicyService;
  tokens: TokenService;
}

export function createServices(database: Database, logger: Logger): Services {
  const registry = new RegistryService(database.db);
  return {
    database,
    logger,
    registry,
    policy: new PolicyService(database.db, registry),
    tokens: new TokenService(database.db),
  };
}
