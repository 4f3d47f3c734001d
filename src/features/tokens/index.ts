/** API tokens as other modules see them. */
export { tokenCommands } from './cli.js';
export { type Authentication, TokenService } from './service.js';
export { DEFAULT_TOKEN_CHECK_INTERVAL_MS, TokenWatch } from './watch.js';
