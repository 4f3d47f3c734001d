import { badInput } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import type { Executor } from '../../db/tx.js';
import type { CardChunk, CardFormat } from './rules/card.js';
import { readPngCard } from './rules/card-png.js';
import { WorldInfoError } from './rules/entries.js';
import { extractCharacterBook, normalizeWorldInfo, type WorldInfoBook } from './rules/worldinfo.js';
import { lorebookEntries, lorebooks, type lorebooks as lorebooksTable } from './tables.js';

export type LorebookRow = typeof lorebooksTable.$inferSelect;

/** What an import was given: a JSON text, or a PNG (a character card) as base64. */
export interface CardOrBookSource {
  json?: string | null;
  pngBase64?: string | null;
}

export interface SourceText {
  /** The JSON text: the file itself, or the card a PNG carries, without a leading BOM. */
  text: string;
  format: CardFormat;
  chunk: CardChunk | null;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The JSON an import reads, from the text given or from a PNG card's chunk. */
export function sourceText(source: CardOrBookSource): SourceText {
  if (source.pngBase64 != null) {
    const compact = source.pngBase64.replace(/\s+/g, '');
    if (!BASE64.test(compact) || compact.length % 4 === 1)
      throw new WorldInfoError('INVALID_PNG', 'pngBase64 is not base64', 'pngBase64');
    return fromPng(Buffer.from(compact, 'base64'));
  }
  // A BOM is not JSON, and Postgres refuses it in a json column.
  return { text: (source.json ?? '').replace(/^\uFEFF/, ''), format: 'JSON', chunk: null };
}

export function fromPng(bytes: Uint8Array): SourceText {
  const card = readPngCard(bytes);
  return { text: card.json.replace(/^\uFEFF/, ''), format: 'PNG', chunk: card.chunk };
}

export interface DetectedBook {
  book: WorldInfoBook;
  /** Text stored as the book's raw JSON: the file itself for a world file, the embedded object for a card. */
  raw: string;
  /** Each entry's key in a world file's `entries` object, in source order. */
  mapKeys: string[] | null;
}

export function detectBook(text: string, fallbackName: string): DetectedBook {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new WorldInfoError('INVALID_JSON', `the lorebook is not valid JSON (${(error as Error).message})`);
  }
  if (!isJsonObject(value))
    throw new WorldInfoError('NOT_AN_OBJECT', 'a lorebook or character card must be a JSON object');
  if ('entries' in value) {
    const book = normalizeWorldInfo(value, fallbackName);
    const mapKeys = isJsonObject(value.entries) ? Object.keys(value.entries) : null;
    return { book, raw: text, mapKeys };
  }
  const book = extractCharacterBook(value);
  if (!book) {
    throw new WorldInfoError(
      'ENTRIES_MISSING',
      'this JSON has no "entries" (a world info file) and no data.character_book (a character card with a lorebook)',
    );
  }
  return { book, raw: JSON.stringify(book.raw), mapKeys: null };
}

/** `comment`, else the first key, else `entry <uid>`: what an index shows. */
function displayName(entry: WorldInfoBook['entries'][number]): string {
  const comment = entry.comment.trim();
  if (comment !== '') return comment;
  return entry.key.find((key) => key.trim() !== '') ?? `entry ${entry.uid}`;
}

/** Writes a book and its entries with the caller's executor (a transaction, for a card). */
export async function insertBook(
  db: Executor,
  detected: DetectedBook,
  meta: { name: string; fileName: string | null; actor: string },
): Promise<LorebookRow> {
  const { book } = detected;
  const seen = new Set<number>();
  for (const entry of book.entries) {
    if (seen.has(entry.uid)) throw badInput(`the lorebook has two entries with uid ${entry.uid}`);
    seen.add(entry.uid);
  }
  const [row] = await db
    .insert(lorebooks)
    .values({
      name: meta.name,
      source: book.source,
      fileName: meta.fileName,
      raw: detected.raw,
      entryCount: book.entries.length,
      importNotes: book.notes,
      importedBy: meta.actor,
    })
    .returning();
  if (book.entries.length > 0) {
    await db.insert(lorebookEntries).values(
      book.entries.map((entry, ordinal) => {
        const { raw: entryRaw, ...fields } = entry;
        return {
          lorebookId: row!.id,
          uid: entry.uid,
          ordinal,
          mapKey: detected.mapKeys?.[ordinal] ?? null,
          name: displayName(entry),
          content: entry.content,
          fields,
          raw: JSON.stringify(entryRaw),
        };
      }),
    );
  }
  return row!;
}
