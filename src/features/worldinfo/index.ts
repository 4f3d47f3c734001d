/** The world-info feature as other modules see it. */

export { CharacterService, type Roleplay } from './characters.js';
export { worldInfoCommands } from './cli.js';
export { WORLD_INFO_POSITION } from './rules/entries.js';
export { substituteMacros } from './rules/macros.js';
export { WorldInfoService } from './service.js';
export { worldInfoTools } from './tools/index.js';
