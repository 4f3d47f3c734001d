import { z } from 'zod';
import type { BuiltInTool } from '../../../calls/tool-contract.js';
import {
  defineArguments,
  integer,
  objectSchema,
  plural,
  readOnlySpec,
  textParts,
  uniqueArray,
} from '../../../calls/tool-kit.js';
import { chatRoles } from '../rules/jsonl.js';
import { MAX_TERM_LENGTH, MAX_TERMS } from '../rules/search.js';
import type { ChatService } from '../service.js';
import { RANK_WINDOW, SEARCH_DEFAULT_LIMIT, type SearchResult } from '../shapes.js';
import { onRunChat, roleSchema, SUMMARY_FIELD } from './common.js';

const args = defineArguments({
  query: z
    .string()
    .min(1)
    .max(MAX_TERMS * (MAX_TERM_LENGTH + 1))
    .describe(
      `Terms separated by spaces, all of which must occur (at most ${MAX_TERMS} terms of ${MAX_TERM_LENGTH} characters).`,
    ),
  roles: uniqueArray(z.enum(chatRoles))
    .min(1)
    .max(3)
    .optional()
    .describe('Only messages by these roles (default: all).'),
  fromIndex: integer().min(0).optional().describe('Only messages with index >= this.'),
  toIndex: integer().min(0).optional().describe('Only messages with index <= this.'),
  limit: integer()
    .min(1)
    .max(100)
    .optional()
    .describe(`Most hits to return (default ${SEARCH_DEFAULT_LIMIT}).`),
});

function render(result: SearchResult, query: string): string {
  if (result.hits.length === 0) {
    return `No message in chat ${result.chatId} contains ${result.terms.map((t) => `"${t}"`).join(' and ')}. This is a normal result: try fewer or shorter terms, or another wording.`;
  }
  const count = result.capped
    ? `more than ${RANK_WINDOW} messages match; ranked among the newest ${RANK_WINDOW}`
    : `${plural(result.matched, 'message')} match`;
  const lines = [`Search "${query}" in chat ${result.chatId}: ${count}; best ${result.hits.length} first.`];
  result.hits.forEach((hit, i) => {
    const when = hit.sentAt ? ` · ${hit.sentAt}` : '';
    lines.push(
      `${i + 1}. #${hit.index} ${hit.role} · ${hit.name}${when} (${hit.ref}; cursor "${hit.cursor}")`,
      `   ${hit.snippet}`,
    );
  });
  lines.push('To read a hit in context, pass its cursor to chat.read_history_before.');
  return lines.join('\n');
}

/** The count line and where the best hits are, without the snippets. */
function searchSummary(result: SearchResult, query: string): string {
  if (result.hits.length === 0) return render(result, query);
  const best = result.hits
    .slice(0, 5)
    .map((hit) => `#${hit.index}`)
    .join(', ');
  const more = result.hits.length > 5 ? ` and ${result.hits.length - 5} more` : '';
  const count = result.capped ? `more than ${RANK_WINDOW}` : String(result.matched);
  return `Searched chat ${result.chatId} for "${query}": ${count} matching messages; best hits ${best}${more}. Search again to see their snippets and cursors.`;
}

export function searchTool(chats: ChatService): BuiltInTool {
  return {
    spec: readOnlySpec({
      name: 'chat.search',
      title: 'Search the chat history',
      description:
        "Finds messages in the current chat's history (the whole history, however long) that contain the query. " +
        'The query is split on spaces into terms; a message matches when its text contains every term, ignoring case ' +
        '(substring match, so it works for Chinese and other languages without spaces: "饕餮" finds 他提起了饕餮的传说). ' +
        'Results are ranked (more occurrences first, then whole-word matches, then newer messages) and each comes with ' +
        'its message index, role, speaker name, a snippet around the first term, a stable ref and a cursor that ' +
        'chat.read_history_before takes to show the message in context. Filter by role or by a ' +
        'message index range. No match is a normal, empty result. Read-only.',
      inputSchema: args.inputSchema,
      outputSchema: objectSchema(
        {
          chatId: { type: 'string' },
          terms: { type: 'array', items: { type: 'string' } },
          matched: {
            type: 'integer',
            minimum: 0,
            description: `Matching messages (at most ${RANK_WINDOW} are counted).`,
          },
          capped: {
            type: 'boolean',
            description: `More than ${RANK_WINDOW} messages match; hits come from the newest ${RANK_WINDOW}.`,
          },
          hits: {
            type: 'array',
            items: objectSchema(
              {
                ref: { type: 'string', description: 'Stable reference: chat:<chatId>#<index>.' },
                index: { type: 'integer', minimum: 0 },
                role: roleSchema,
                name: { type: 'string' },
                sentAt: { type: ['string', 'null'] },
                score: { type: 'integer', minimum: 0 },
                snippet: { type: 'string', description: 'Text around the first term; … marks cut ends.' },
                snippetStart: { type: 'integer', minimum: 0 },
                chars: { type: 'integer', minimum: 0, description: 'Characters in the whole message.' },
                cursor: {
                  type: 'string',
                  description:
                    'Pass to chat.read_history_before to read this message and the ones before it.',
                },
              },
              [
                'ref',
                'index',
                'role',
                'name',
                'sentAt',
                'score',
                'snippet',
                'snippetStart',
                'chars',
                'cursor',
              ],
            ),
          },
          summary: SUMMARY_FIELD,
        },
        ['chatId', 'terms', 'matched', 'capped', 'hits'],
      ),
    }),
    async run(invocation) {
      const input = args.parse(invocation);
      const result = await onRunChat(chats, invocation, (service, chatId) => service.search(chatId, input));
      return {
        content: textParts(render(result, input.query)),
        structured: { ...result, summary: searchSummary(result, input.query) },
      };
    },
  };
}
