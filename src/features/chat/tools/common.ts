import type { Invocation } from '../../../calls/tool-contract.js';
import { integer, objectSchema, textParts } from '../../../calls/tool-kit.js';
import { DomainError } from '../../../core/errors.js';
import { RecoverableToolError } from '../../../core/tool-errors.js';
import { chatRoles } from '../rules/jsonl.js';
import type { ChatService } from '../service.js';
import { HISTORY_DEFAULT_LIMIT, HISTORY_DEFAULT_MAX_CHARS, type HistoryPage } from '../shapes.js';

/**
 * The run's chat decides what the chat tools see; a run without one has no history to read. The
 * chat's existence is not checked up front (a query costs a millisecond): the service answers
 * NOT_FOUND for an unknown chat, which becomes a recoverable error here.
 */
export async function onRunChat<T>(
  chats: ChatService,
  invocation: Invocation,
  work: (service: ChatService, chatId: string) => Promise<T>,
): Promise<T> {
  const chatId = invocation.run.chatId;
  if (!chatId) {
    throw new RecoverableToolError(
      'no_chat',
      'This run is not attached to a chat, so there is no chat history to read. Continue without the chat tools.',
    );
  }
  try {
    return await work(chats, chatId);
  } catch (error) {
    if (DomainError.is(error) && error.code === 'NOT_FOUND') {
      throw new RecoverableToolError(
        'chat_not_found',
        `The chat of this run (${chatId}) has not been imported into the tool server, so its history cannot be read.`,
      );
    }
    if (DomainError.is(error)) {
      throw new RecoverableToolError(
        'invalid_arguments',
        `${error.message}. Fix the arguments and call the tool again.`,
      );
    }
    throw error;
  }
}

export const roleSchema = { enum: [...chatRoles] };
const position = { type: 'integer', minimum: 0 };
const dateOrNull = {
  type: ['string', 'null'],
  description: 'When the message was sent (ISO 8601, as SillyTavern stored it), or null.',
};

/** What the context shows of an older result in SUMMARY form (docs/providers-and-context.md). */
export const SUMMARY_FIELD = {
  type: 'string',
  description:
    'This result in one or two sentences: what an older result is reduced to in a summarized context.',
};

export const historyArguments = {
  limit: integer()
    .min(1)
    .max(200)
    .optional()
    .describe(`Most messages to return (default ${HISTORY_DEFAULT_LIMIT}).`),
  maxChars: integer()
    .min(100)
    .max(50_000)
    .optional()
    .describe(`Character budget for the message texts of this page (default ${HISTORY_DEFAULT_MAX_CHARS}).`),
};

export const historyOutputSchema = objectSchema(
  {
    chatId: { type: 'string' },
    messageCount: { ...position, description: 'Messages in the whole chat.' },
    messages: {
      type: 'array',
      description: 'Oldest first.',
      items: objectSchema(
        {
          ref: { type: 'string', description: 'Stable reference: chat:<chatId>#<index>.' },
          index: { ...position, description: 'The message id in the chat (0 = first message).' },
          role: roleSchema,
          name: { type: 'string' },
          sentAt: dateOrNull,
          text: { type: 'string', description: 'The shown part of the message text.' },
          chars: { ...position, description: 'Characters in the whole message.' },
          truncated: {
            type: 'boolean',
            description: 'Only the characters start..end of the message are shown.',
          },
          start: position,
          end: position,
        },
        ['ref', 'index', 'role', 'name', 'sentAt', 'text', 'chars', 'truncated', 'start', 'end'],
      ),
    },
    nextCursor: {
      type: ['string', 'null'],
      description: 'Pass to chat.read_history_before for the older page; null at the start of the chat.',
    },
    continuation: {
      type: ['string', 'null'],
      description: 'Set when a message was cut: which part is missing and how to read it.',
    },
    summary: SUMMARY_FIELD,
  },
  ['chatId', 'messageCount', 'messages', 'nextCursor', 'continuation'],
);

export function renderHistory(page: HistoryPage): string {
  if (page.messages.length === 0) {
    return page.messageCount === 0
      ? `Chat ${page.chatId} has no messages.`
      : `Nothing older: this is the start of chat ${page.chatId} (${page.messageCount} messages).`;
  }
  const first = page.messages[0]!.index;
  const last = page.messages.at(-1)!.index;
  const lines = [`Chat ${page.chatId}: messages #${first}-#${last} of ${page.messageCount} (oldest first).`];
  for (const message of page.messages) {
    const when = message.sentAt ? ` · ${message.sentAt}` : '';
    const part = message.truncated ? ` · characters ${message.start}-${message.end} of ${message.chars}` : '';
    lines.push('', `[#${message.index} ${message.role} · ${message.name}${when}${part}]`, message.text);
  }
  lines.push('');
  if (page.continuation) lines.push(page.continuation);
  else if (page.nextCursor)
    lines.push(`Older messages: call chat.read_history_before with cursor "${page.nextCursor}".`);
  else lines.push('This is the start of the chat.');
  return lines.join('\n');
}

/** What was read and how to read on, without the texts. */
function historySummary(page: HistoryPage): string {
  if (page.messages.length === 0) return renderHistory(page);
  const first = page.messages[0]!.index;
  const last = page.messages.at(-1)!.index;
  const read = `Read messages #${first}-#${last} of chat ${page.chatId} (${page.messageCount} messages).`;
  return page.nextCursor
    ? `${read} Older messages: chat.read_history_before with cursor "${page.nextCursor}".`
    : `${read} This is the start of the chat.`;
}

export const historyOutput = (page: HistoryPage) => ({
  content: textParts(renderHistory(page)),
  structured: { ...page, summary: historySummary(page) },
});
