import { sql } from 'drizzle-orm';
import { boolean, customType, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { createdAt, rawJson, tstz } from '../../db/columns.js';
import { jsonb } from '../../db/jsonb.js';
import type { ChatHeaderShape, ChatRole, LineEnding } from './rules/jsonl.js';

/**
 * SillyTavern chats (issue 7). The search functions used by `chat_messages.search`
 * (`ats_chat_search_vector`, `ats_latin_text`) are created by the custom migration that precedes
 * the tables.
 */

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/** One imported chat file. Blank lines are kept here so that export writes the file back byte for byte. */
export const chats = pgTable('chats', {
  id: text('id').primaryKey(),
  fileName: text('file_name'),
  headerShape: text('header_shape').$type<ChatHeaderShape>().notNull(),
  userName: text('user_name'),
  characterName: text('character_name'),
  /** `create_date` parsed (SillyTavern stores wall-clock stamps; see st-date.ts). */
  createDate: tstz('create_date'),
  header: rawJson('header').notNull(),
  headerLine: integer('header_line').notNull(),
  headerBom: boolean('header_bom').notNull(),
  headerEol: text('header_eol').$type<LineEnding>().notNull(),
  blankLines: jsonb('blank_lines')
    .$type<Array<{ lineNumber: number; text: string; eol: LineEnding }>>()
    .notNull(),
  messageCount: integer('message_count').notNull(),
  /** Size and sha256 of the imported file's UTF-8 bytes: an export must reproduce both. */
  byteSize: integer('byte_size').notNull(),
  sha256: text('sha256').notNull(),
  importedBy: text('imported_by').notNull(),
  /** The user whose runs may read it, named by the admin who imported it. */
  ownerUserId: text('owner_user_id'),
  importedAt: createdAt(),
});

export const chatMessages = pgTable(
  'chat_messages',
  {
    chatId: text('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    /** Position in SillyTavern's `chat` array: the message id a host and the refs use. */
    index: integer('idx').notNull(),
    lineNumber: integer('line_number').notNull(),
    role: text('role').$type<ChatRole>().notNull(),
    name: text('name').notNull(),
    /** `mes` (or the `system` text of a non-standard line); what search and history read. */
    text: text('text').notNull(),
    isUser: boolean('is_user').notNull(),
    isSystem: boolean('is_system').notNull(),
    nonStandard: boolean('non_standard').notNull(),
    /** `send_date` as stored: a string or an epoch number. */
    sendDate: jsonb('send_date'),
    sentAt: tstz('sent_at'),
    raw: rawJson('raw').notNull(),
    eol: text('eol').$type<LineEnding>().notNull(),
    search: tsvector('search').notNull().generatedAlwaysAs(sql`ats_chat_search_vector("text")`),
  },
  (t) => [
    primaryKey({ columns: [t.chatId, t.index] }),
    index('chat_messages_search_idx').using('gin', t.search),
    index('chat_messages_latin_trgm_idx').using('gin', sql`ats_latin_text(${t.text}) gin_trgm_ops`),
  ],
);
