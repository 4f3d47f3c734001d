/** API tokens as other modules see them. */
export { tokenCommands } from './cli.js';
export { TokenService } from './service.js';
