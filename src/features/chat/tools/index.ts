import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { inDatabase } from '../../../calls/tool-kit.js';
import type { ChatService } from '../service.js';
import { readHistoryBeforeTool } from './read-history-before.js';
import { readHistoryTailTool } from './read-history-tail.js';
import { searchTool } from './search.js';

/** Seed §7.2: the chat tools, over the chat the run is attached to. */
export function chatTools(chats: ChatService): BuiltInTool[] {
  return inDatabase([searchTool(chats), readHistoryTailTool(chats), readHistoryBeforeTool(chats)]);
}
