import { z } from 'zod';
import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { defineArguments, readOnlySpec } from '../../../calls/tool-kit.js';
import type { ChatService } from '../service.js';
import { historyArguments, historyOutput, historyOutputSchema, onRunChat } from './common.js';

const args = defineArguments({
  cursor: z.string().min(1).max(1000).describe('nextCursor of an earlier result.'),
  ...historyArguments,
});

export function readHistoryBeforeTool(chats: ChatService): BuiltInTool {
  return {
    spec: readOnlySpec({
      name: 'chat.read_history_before',
      title: 'Read older chat messages',
      description:
        'Returns the page of messages just before a cursor, oldest first, within the limit and the character budget. ' +
        'Get the cursor from chat.read_history_tail or from a previous chat.read_history_before (nextCursor); a null ' +
        'nextCursor means the start of the chat was reached. Cursors are opaque and belong to this chat. A message ' +
        'longer than the budget is cut and the result says how to read the rest. Read-only.',
      inputSchema: args.inputSchema,
      outputSchema: historyOutputSchema,
    }),
    async run(invocation) {
      const { cursor, limit, maxChars } = args.parse(invocation);
      return historyOutput(
        await onRunChat(chats, invocation, (service, chatId) =>
          service.history(chatId, { cursor, limit, maxChars }),
        ),
      );
    },
  };
}
