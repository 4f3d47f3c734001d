import type { BuiltInTool } from '../../../calls/tool-contract.js';
import type { ChatService } from '../service.js';
import { objectSchema, readOnlySpec } from '../../../calls/tool-kit.js';
import { historyInputProperties, historyOutput, historyOutputSchema, onRunChat } from './common.js';

interface BeforeArgs {
  cursor: string;
  limit?: number;
  maxChars?: number;
}

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
      inputSchema: objectSchema(
        {
          cursor: {
            type: 'string',
            minLength: 1,
            maxLength: 1000,
            description: 'nextCursor of an earlier result.',
          },
          ...historyInputProperties,
        },
        ['cursor'],
      ),
      outputSchema: historyOutputSchema,
    }),
    async run(invocation) {
      const args = invocation.arguments as unknown as BeforeArgs;
      return historyOutput(
        await onRunChat(chats, invocation, (service, chatId) =>
          service.history(chatId, { cursor: args.cursor, limit: args.limit, maxChars: args.maxChars }),
        ),
      );
    },
  };
}
