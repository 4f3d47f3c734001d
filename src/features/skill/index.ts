/** The skill feature as other modules see it. */
export { skillCommands } from './cli.js';
export { SkillService } from './service.js';
export { skillTools } from './tools/index.js';
