/** The chat feature as other modules see it. */
export { chatCommands } from './cli.js';
export { type ChatRow, ChatService, type HistoryPage } from './service.js';
export { chatTools } from './tools/index.js';
