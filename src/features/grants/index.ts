/** Scoped grants as other modules see them. */
export { grantCommands } from './cli.js';
export { GrantService } from './service.js';
