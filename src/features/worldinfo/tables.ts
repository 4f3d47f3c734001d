import { index, integer, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, rawJson } from '../../db/columns.js';
import { jsonb } from '../../db/jsonb.js';
import { activationSources } from './rules/activation.js';
import { cardChunks, cardFormats } from './rules/card.js';
import type { WorldInfoEntryFields } from './rules/entries.js';
import type { WorldInfoSource } from './rules/worldinfo.js';

/**
 * Lorebooks and world-info activations (issue 7). Run ids are plain uuids without a foreign key, as
 * in the journal and the workspace tables: a host may record an activation for a run before or
 * without this server's copy of it.
 */

export const lorebooks = pgTable('lorebooks', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  source: text('source').$type<WorldInfoSource>().notNull(),
  fileName: text('file_name'),
  /** The book object as imported; its entries are rebuilt from `lorebook_entries` on export. */
  raw: rawJson('raw').notNull(),
  entryCount: integer('entry_count').notNull(),
  /** What the import converted from a form SillyTavern accepts into its own, one line each. */
  importNotes: jsonb('import_notes').$type<string[]>().notNull().default([]),
  importedBy: text('imported_by').notNull(),
  importedAt: createdAt(),
});

/**
 * SillyTavern character cards (issue 28). `card` is the card's JSON text as imported (from a JSON
 * file or a PNG's chunk), so every string comes back exactly; its embedded book, if any, is
 * imported with it as a lorebook.
 */
export const characters = pgTable(
  'characters',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    /** `chara_card_v2`, `chara_card_v3`, or null for a V1 card. */
    spec: text('spec'),
    specVersion: text('spec_version'),
    format: text('format', { enum: cardFormats }).notNull(),
    /** For a PNG: the tEXt chunk the card was read from (`ccv3` or `chara`). */
    chunk: text('chunk', { enum: cardChunks }),
    fileName: text('file_name'),
    card: rawJson('card').notNull(),
    lorebookId: uuid('lorebook_id').references(() => lorebooks.id, { onDelete: 'set null' }),
    importNotes: jsonb('import_notes').$type<string[]>().notNull(),
    importedBy: text('imported_by').notNull(),
    importedAt: createdAt(),
  },
  (t) => [index('characters_name_idx').on(t.name, t.importedAt)],
);

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
