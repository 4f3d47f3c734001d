/** The chat feature as other modules see it. */
export { chatCommands } from './cli.js';
export { ChatService, type LastSpeakers } from './service.js';
export type { ChatRow, HistoryPage } from './shapes.js';
export { chatTools } from './tools/index.js';
