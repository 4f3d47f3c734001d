import { sql } from 'drizzle-orm';
import {
  boolean,
  customType,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, tstz } from '../../db/columns.js';
import { jsonb } from '../../db/jsonb.js';
import type { SkillWarning } from '../skill/rules/skill.js';
import type { WorldInfoEntryFields, WorldInfoSource } from '../worldinfo/rules/worldinfo.js';
import type { ChatHeaderShape, ChatRole, LineEnding } from './rules/jsonl.js';

/**
 * Issue 7: SillyTavern chats, Agent Skills and lorebooks. Run ids are plain uuids without a foreign
 * key, as in the journal and the workspace tables: a host may record an activation for a run
 * before or without this server's copy of it.
 *
 * The search functions used by `chat_messages.search` (`ats_chat_search_vector`, `ats_latin_text`)
 * are created by the custom migration that precedes the tables.
 */

/**
 * `json`, not `jsonb`: Postgres keeps json text exactly as given (key order, spacing, number
 * spellings), which a lossless export needs. Both drivers parse json on the way out, so code that
 * needs the exact text selects `column::text`.
 */
const rawJson = customType<{ data: string; driverData: string }>({
  dataType: () => 'json',
  fromDriver: (value) => (typeof value === 'string' ? value : JSON.stringify(value)),
});

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

export const skills = pgTable('skills', {
  name: text('name').primaryKey(),
  description: text('description').notNull(),
  license: text('license'),
  compatibility: text('compatibility'),
  allowedTools: jsonb('allowed_tools').$type<string[]>().notNull(),
  frontMatter: jsonb('front_matter').$type<Record<string, unknown>>().notNull(),
  warnings: jsonb('warnings').$type<SkillWarning[]>().notNull(),
  importedBy: text('imported_by').notNull(),
  importedAt: createdAt(),
});

export const skillFiles = pgTable(
  'skill_files',
  {
    skillName: text('skill_name')
      .notNull()
      .references(() => skills.name, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    content: text('content').notNull(),
    /** Characters (code points), the unit of skill.read budgets. */
    chars: integer('chars').notNull(),
  },
  (t) => [primaryKey({ columns: [t.skillName, t.path] })],
);

export const skillRuleEffects = ['VISIBLE', 'DENY'] as const;
export type SkillRuleEffect = (typeof skillRuleEffects)[number];

/**
 * Which skills a profile's runs may see. A rule without a profile applies to every run. A skill is
 * visible when a VISIBLE rule matches it and no DENY rule does (deny wins; nothing is visible
 * without a rule, like tools).
 */
export const skillRules = pgTable(
  'skill_rules',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    profileId: text('profile_id'),
    pattern: text('pattern').notNull(),
    effect: text('effect', { enum: skillRuleEffects }).notNull(),
    reason: text('reason'),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('skill_rules_profile_idx').on(t.profileId)],
);

/** Characters skill.read returned per call: the per-run budget is their sum, durable across restarts. */
export const skillReads = pgTable(
  'skill_reads',
  {
    callId: uuid('call_id').primaryKey(),
    runId: uuid('run_id').notNull(),
    skillName: text('skill_name').notNull(),
    path: text('path').notNull(),
    chars: integer('chars').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('skill_reads_run_idx').on(t.runId)],
);

export const lorebooks = pgTable('lorebooks', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  source: text('source').$type<WorldInfoSource>().notNull(),
  fileName: text('file_name'),
  /** The book object as imported; its entries are rebuilt from `lorebook_entries` on export. */
  raw: rawJson('raw').notNull(),
  entryCount: integer('entry_count').notNull(),
  importedBy: text('imported_by').notNull(),
  importedAt: createdAt(),
});

export const lorebookEntries = pgTable(
  'lorebook_entries',
  {
    lorebookId: uuid('lorebook_id')
      .notNull()
      .references(() => lorebooks.id, { onDelete: 'cascade' }),
    uid: integer('uid').notNull(),
    /** Position in the source (`entries` key order or array order), which export keeps. */
    ordinal: integer('ordinal').notNull(),
    /** The key of the entry in a world file's `entries` object; null for card books (an array). */
    mapKey: text('map_key'),
    /** `comment`, else the first key, else `entry <uid>`: what an index shows. */
    name: text('name').notNull(),
    content: text('content').notNull(),
    /** Every field of SillyTavern's entry definition, normalised with its defaults. */
    fields: jsonb('fields').$type<WorldInfoEntryFields & { uid: number; displayIndex: number }>().notNull(),
    raw: rawJson('raw').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.lorebookId, t.ordinal] }),
    uniqueIndex('lorebook_entries_uid_idx').on(t.lorebookId, t.uid),
  ],
);

export const activationSources = ['HOST', 'COMPUTED'] as const;
export type ActivationSource = (typeof activationSources)[number];

export interface ActivationEntrySnapshot {
  ref: string;
  lorebookId: string;
  lorebookName: string;
  uid: number;
  name: string;
  position: number;
  depth: number;
  role: number;
  constant: boolean;
  order: number;
  /** The content as it went into the prompt (a host may send it after macro substitution). */
  content: string;
  size: number;
  matchedKey: string | null;
}

/** A world-info activation, recorded by the host or computed here; entries are a snapshot. */
export const worldInfoActivations = pgTable(
  'worldinfo_activations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    runId: uuid('run_id'),
    chatId: text('chat_id'),
    source: text('source', { enum: activationSources }).notNull(),
    entries: jsonb('entries').$type<ActivationEntrySnapshot[]>().notNull(),
    budget: jsonb('budget').$type<{ limit: number | null; used: number; overflowed: boolean } | null>(),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('worldinfo_activations_run_idx').on(t.runId, t.createdAt),
    index('worldinfo_activations_chat_idx').on(t.chatId, t.createdAt),
  ],
);
