/** The chat feature as other modules see it. */
export { chatCommands } from './cli.js';
export { type ChatRow, ChatService, type HistoryPage, type LastSpeakers } from './service.js';
export { chatTools } from './tools/index.js';
