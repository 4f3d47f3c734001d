import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { defineArguments, readOnlySpec } from '../../../calls/tool-kit.js';
import type { ChatService } from '../service.js';
import { historyArguments, historyOutput, historyOutputSchema, onRunChat } from './common.js';

const args = defineArguments(historyArguments);

export function readHistoryTailTool(chats: ChatService): BuiltInTool {
  return {
    spec: readOnlySpec({
      name: 'chat.read_history_tail',
      title: 'Read the latest chat messages',
      description:
        'Returns the most recent messages of the current chat, oldest first, as many as fit in the limit and the ' +
        'character budget. Each message has its index, role, speaker name and text. When older messages exist the ' +
        'result has a nextCursor: pass it to chat.read_history_before to page further back. A message longer than the ' +
        'whole budget is cut: you get its end, the result says which characters are missing, and the cursor reads them ' +
        'next. Read-only.',
      inputSchema: args.inputSchema,
      outputSchema: historyOutputSchema,
    }),
    async run(invocation) {
      const { limit, maxChars } = args.parse(invocation);
      return historyOutput(
        await onRunChat(chats, invocation, (service, chatId) => service.history(chatId, { limit, maxChars })),
      );
    },
  };
}
