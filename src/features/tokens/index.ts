/** API tokens as other modules see them. */
export { tokenCommands } from './cli.js';
export { TokenService } from './service.js';
export { DEFAULT_TOKEN_CHECK_INTERVAL_MS, TokenWatch } from './watch.js';
