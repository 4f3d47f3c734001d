import { z } from 'zod';
import { type ChatRole, chatRoles } from './rules/jsonl.js';
import { MAX_TERM_LENGTH, MAX_TERMS, splitTerms } from './rules/search.js';
import type { chats } from './tables.js';

/** The chat feature's inputs, results and limits, shared by the service, its parts, the tools and GraphQL. */

export type ChatRow = typeof chats.$inferSelect;

export const chatIdSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[^\p{Cc}]+$/u, 'must not contain control characters');

export const chatSearchInputSchema = z
  .object({
    query: z
      .string()
      .trim()
      .min(1)
      .max(MAX_TERMS * (MAX_TERM_LENGTH + 1)),
    roles: z.array(z.enum(chatRoles)).min(1).max(3).nullish(),
    fromIndex: z.number().int().min(0).nullish(),
    toIndex: z.number().int().min(0).nullish(),
    limit: z.number().int().min(1).max(100).nullish(),
  })
  .superRefine((input, ctx) => {
    const terms = splitTerms(input.query);
    if (terms.length > MAX_TERMS) {
      ctx.addIssue({
        code: 'custom',
        path: ['query'],
        message: `at most ${MAX_TERMS} terms (words separated by spaces)`,
      });
    }
    if (terms.some((term) => term.length > MAX_TERM_LENGTH)) {
      ctx.addIssue({
        code: 'custom',
        path: ['query'],
        message: `a term may have at most ${MAX_TERM_LENGTH} characters`,
      });
    }
    if (input.fromIndex != null && input.toIndex != null && input.fromIndex > input.toIndex) {
      ctx.addIssue({ code: 'custom', path: ['toIndex'], message: 'must not be smaller than fromIndex' });
    }
  });

export type ChatSearchInput = z.input<typeof chatSearchInputSchema>;

export const historyInputSchema = z.object({
  cursor: z.string().min(1).max(1000).nullish(),
  limit: z.number().int().min(1).max(200).nullish(),
  maxChars: z.number().int().min(100).max(50_000).nullish(),
});

export type HistoryInput = z.input<typeof historyInputSchema>;

export const SEARCH_DEFAULT_LIMIT = 20;

/**
 * Ranking looks at the newest this-many matches. Past that, scoring every match of a very common
 * term costs a full pass over it; the result says so and the caller can narrow by index range.
 */
export const RANK_WINDOW = 1000;

export const HISTORY_DEFAULT_LIMIT = 20;

export const HISTORY_DEFAULT_MAX_CHARS = 8_000;

export interface ImportProgress {
  /** UTF-8 bytes of the source read so far. */
  bytes: number;
  lines: number;
  messages: number;
}

export interface ImportChatOptions {
  id?: string | null;
  fileName?: string | null;
  /** Replace a chat that already has this id instead of refusing with CONFLICT. */
  replace?: boolean;
  /** The user whose runs may read the chat; null: nobody's (only runs without a user read it). */
  ownerUserId?: string | null;
  actor: string;
  onProgress?: (progress: ImportProgress) => void;
}

export interface SearchHit {
  ref: string;
  index: number;
  role: ChatRole;
  name: string;
  sentAt: string | null;
  /** Occurrences of the terms, plus one per Latin term that matches a whole word. */
  score: number;
  snippet: string;
  /** Code-point offset of the snippet's first character in the message. */
  snippetStart: number;
  chars: number;
  /** For chat.read_history_before: the page that ends with this message. */
  cursor: string;
}

export interface SearchResult {
  chatId: string;
  terms: string[];
  hits: SearchHit[];
  /** Messages that match; a lower bound when `capped`. */
  matched: number;
  /** More than RANK_WINDOW messages match: hits are ranked among the newest RANK_WINDOW. */
  capped: boolean;
}

export interface HistoryMessage {
  ref: string;
  index: number;
  role: ChatRole;
  name: string;
  sentAt: string | null;
  /** The shown part of the text: all of it unless `truncated`. */
  text: string;
  /** Characters of the whole message. */
  chars: number;
  truncated: boolean;
  /** Code-point range of `text` within the message. */
  start: number;
  end: number;
}

export interface HistoryPage {
  chatId: string;
  messageCount: number;
  messages: HistoryMessage[];
  nextCursor: string | null;
  /** Says in words what was cut and how to read it; null when nothing was cut. */
  continuation: string | null;
}

export const messageRef = (chatId: string, index: number) => `chat:${chatId}#${index}`;

export const iso = (value: unknown): string | null =>
  value === null || value === undefined ? null : new Date(value as string).toISOString();
