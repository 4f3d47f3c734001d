/**
 * Normalises SillyTavern lorebooks into one entry type.
 *
 * Inputs: world info files (`{"entries": {"<uid>": entry}}`, both the old minimal shape and the
 * current full export), bare V2/V3 character books (`{"entries": [...]}`) and the
 * `data.character_book` of a character card. Every entry gets every field of ST's
 * `newWorldInfoEntryDefinition` with ST's defaults (entries.ts), plus `uid`, `displayIndex` and the
 * untouched source object as `raw`. Card-book entries are mapped the way ST's `convertCharacterBook`
 * does it (`keys` → `key`, `insertion_order` → `order`, `enabled` → `!disable`, snake_case
 * `extensions.*` → camelCase fields, `position` "before_char"/"after_char" → 0/1 unless
 * `extensions.position` is set).
 */
import { isJsonObject, type JsonObject } from '../../../core/json.js';
import { normalizeCharacterBookEntry } from './card-book-entries.js';
import {
  fieldError,
  integerOrNull,
  normalizeWorldEntry,
  type WorldInfoEntry,
  WorldInfoError,
} from './entries.js';

export type WorldInfoSource = 'world' | 'character_book';

export interface WorldInfoBook {
  /** The file name the caller gives for a world file, `character_book.name` for a card book. */
  name: string | null;
  source: WorldInfoSource;
  entries: WorldInfoEntry[];
  raw: JsonObject;
  /** What the import converted from a form SillyTavern accepts into its own (one line each). */
  notes: string[];
}

function requireObjectEntry(value: unknown, path: string): JsonObject {
  if (!isJsonObject(value))
    throw new WorldInfoError('ENTRY_NOT_OBJECT', `${path}: a world info entry must be an object`, path);
  return value;
}

function normalizeWorldEntries(entries: JsonObject, notes: string[]): WorldInfoEntry[] {
  return Object.entries(entries).map(([mapKey, value], index) => {
    const path = `entries[${JSON.stringify(mapKey)}]`;
    const raw = requireObjectEntry(value, path);
    const uid = integerOrNull(raw.uid) ?? integerOrNull(mapKey) ?? index;
    return normalizeWorldEntry(raw, uid, index, { path, notes });
  });
}

/** Ids as ST assigns them: the entry's own `id`, otherwise the smallest id no other entry uses. */
function normalizeCharacterBookEntries(
  entries: unknown[],
  prefix: string,
  notes: string[],
): WorldInfoEntry[] {
  const raws = entries.map((value, index) => requireObjectEntry(value, `${prefix}entries[${index}]`));
  const used = new Set(raws.map((raw) => integerOrNull(raw.id)).filter((id) => id !== null));
  let nextFree = 0;
  return raws.map((raw, index) => {
    let uid = integerOrNull(raw.id);
    if (uid === null) {
      while (used.has(nextFree)) nextFree++;
      uid = nextFree;
      used.add(uid);
    }
    return normalizeCharacterBookEntry(raw, uid, index, { path: `${prefix}entries[${index}]`, notes });
  });
}

/**
 * Normalises a parsed world info file (`entries` is a uid-keyed object) or a bare character book
 * (`entries` is an array). `name` is the world's name, which ST takes from the file name.
 */
export function normalizeWorldInfo(value: unknown, name: string | null = null): WorldInfoBook {
  if (!isJsonObject(value))
    throw new WorldInfoError('NOT_AN_OBJECT', 'a world info file must be a JSON object');
  const { entries } = value;
  const notes: string[] = [];
  if (Array.isArray(entries)) {
    const bookName = typeof value.name === 'string' && value.name !== '' ? value.name : name;
    return {
      name: bookName,
      source: 'character_book',
      entries: normalizeCharacterBookEntries(entries, '', notes),
      raw: value,
      notes,
    };
  }
  if (!isJsonObject(entries)) {
    throw new WorldInfoError('ENTRIES_MISSING', 'a world info file needs an "entries" object or array');
  }
  return { name, source: 'world', entries: normalizeWorldEntries(entries, notes), raw: value, notes };
}

export function parseWorldInfoJson(text: string, name: string | null = null): WorldInfoBook {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new WorldInfoError('INVALID_JSON', `world info file is not valid JSON (${detail})`);
  }
  return normalizeWorldInfo(value, name);
}

/**
 * The lorebook embedded in a V2/V3 character card (`data.character_book`), or null when the card has
 * none. Named like ST's "Import Card Lore": the book's own name, else "<character>'s Lorebook".
 */
export function extractCharacterBook(card: unknown): WorldInfoBook | null {
  if (!isJsonObject(card))
    throw new WorldInfoError('NOT_AN_OBJECT', 'a character card must be a JSON object');
  const data = isJsonObject(card.data) ? card.data : null;
  const book = data?.character_book;
  if (book === undefined || book === null) return null;
  if (!isJsonObject(book)) throw fieldError('data.character_book', 'an object', book);
  if (!Array.isArray(book.entries)) {
    throw new WorldInfoError(
      'ENTRIES_MISSING',
      'data.character_book.entries: the character book has no "entries" array',
      'data.character_book.entries',
    );
  }
  const characterName =
    typeof data?.name === 'string' ? data.name : typeof card.name === 'string' ? card.name : '';
  const name = typeof book.name === 'string' && book.name !== '' ? book.name : `${characterName}'s Lorebook`;
  const notes: string[] = [];
  const entries = normalizeCharacterBookEntries(book.entries, 'data.character_book.', notes);
  return { name, source: 'character_book', entries, raw: book, notes };
}
