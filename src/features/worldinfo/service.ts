import { asc, desc, eq, inArray, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { notFound } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { parseInput } from '../../core/parse-input.js';
import { codePoints } from '../../core/unicode.js';
import type { Db } from '../../db/client.js';
import type { ChatService } from '../chat/index.js';
import { detectBook, insertBook, type LorebookRow, sourceText } from './books.js';
import type { CharacterService, Roleplay } from './characters.js';
import { activateWorldInfo, DEFAULT_SCAN_DEPTH, MAX_SCAN_DEPTH } from './rules/activation.js';
import type { WorldInfoEntry } from './rules/entries.js';
import { substituteMacros } from './rules/macros.js';
import { type ActivationEntrySnapshot, lorebookEntries, lorebooks, worldInfoActivations } from './tables.js';

export type { LorebookRow } from './books.js';
export type LorebookEntryRow = typeof lorebookEntries.$inferSelect;
export type ActivationRow = typeof worldInfoActivations.$inferSelect;

const MAX_LOREBOOK_BYTES = 16 * 1024 * 1024;
/** A PNG card as base64: a few MB of image around the card is common. */
export const MAX_PNG_BASE64_CHARS = 48 * 1024 * 1024;

export const importLorebookInputSchema = z
  .object({
    json: z.string().min(2).max(MAX_LOREBOOK_BYTES).nullish(),
    pngBase64: z.string().min(1).max(MAX_PNG_BASE64_CHARS).nullish(),
    fileName: z.string().trim().min(1).max(500).nullish(),
    name: z.string().trim().min(1).max(200).nullish(),
  })
  .refine((input) => (input.json == null) !== (input.pngBase64 == null), {
    path: ['json'],
    message: 'give either json or pngBase64',
  });
export type ImportLorebookInput = z.input<typeof importLorebookInputSchema>;

export const recordActivationInputSchema = z
  .object({
    runId: z.uuid().nullish(),
    chatId: z.string().trim().min(1).max(200).nullish(),
    entries: z
      .array(
        z.object({
          lorebookId: z.uuid(),
          uid: z.number().int(),
          /** The text the host put into the prompt, when it differs from the stored content (macros). */
          content: z.string().max(1_000_000).nullish(),
        }),
      )
      .max(1000),
  })
  .refine((input) => input.runId != null || input.chatId != null, {
    path: ['runId'],
    message: 'give a runId, a chatId or both',
  });
export type RecordActivationInput = z.input<typeof recordActivationInputSchema>;

export const computeActivationInputSchema = z.object({
  chatId: z.string().trim().min(1).max(200),
  runId: z.uuid().nullish(),
  /** Books in priority order, as SillyTavern's world-info sorting would give them. */
  lorebookIds: z.array(z.uuid()).min(1).max(50),
  scanDepth: z.number().int().min(0).max(MAX_SCAN_DEPTH).nullish(),
  caseSensitive: z.boolean().nullish(),
  matchWholeWords: z.boolean().nullish(),
  includeNames: z.boolean().nullish(),
  /** Characters of activated content; null or absent for no limit. */
  budget: z.number().int().min(0).nullish(),
});
export type ComputeActivationInput = z.input<typeof computeActivationInputSchema>;

export const entryRef = (lorebookId: string, uid: number) => `wi:${lorebookId}#${uid}`;

export class WorldInfoService {
  constructor(
    private readonly db: Db,
    private readonly chats: ChatService,
    private readonly characters: CharacterService,
  ) {}

  /** The chat's character and macro values (characters.ts), for context assembly. */
  roleplay(chatId: string | null): Promise<Roleplay> {
    return this.characters.roleplay(chatId);
  }

  list(): Promise<LorebookRow[]> {
    return this.db.select().from(lorebooks).orderBy(asc(lorebooks.name), asc(lorebooks.id));
  }

  async get(id: string): Promise<LorebookRow | null> {
    if (!z.uuid().safeParse(id).success) return null;
    const [row] = await this.db.select().from(lorebooks).where(eq(lorebooks.id, id)).limit(1);
    return row ?? null;
  }

  entries(lorebookId: string): Promise<LorebookEntryRow[]> {
    return this.db
      .select()
      .from(lorebookEntries)
      .where(eq(lorebookEntries.lorebookId, lorebookId))
      .orderBy(asc(lorebookEntries.ordinal));
  }

  /** A world info file, a bare character book, or a character card (JSON or PNG) with `data.character_book`. */
  async importLorebook(raw: ImportLorebookInput, actor: string): Promise<LorebookRow> {
    const input = parseInput(importLorebookInputSchema, raw);
    const fileStem = input.fileName?.replace(/^.*[\\/]/, '').replace(/\.(json|png)$/i, '') ?? null;
    const detected = detectBook(sourceText(input).text, fileStem ?? 'Untitled');
    return this.db.transaction((tx) =>
      insertBook(tx, detected, {
        name: input.name ?? detected.book.name ?? fileStem ?? 'Untitled',
        fileName: input.fileName ?? null,
        actor,
      }),
    );
  }

  /** The book as imported, its entries rebuilt from the stored rows in their source order. */
  async exportLorebook(id: string): Promise<JsonObject> {
    const book = await this.get(id);
    if (!book) throw notFound(`no lorebook ${id}`);
    const rows = await this.entries(id);
    const value = JSON.parse(book.raw) as JsonObject;
    value.entries =
      book.source === 'world' && isJsonObject(value.entries)
        ? Object.fromEntries(rows.map((row) => [row.mapKey ?? String(row.uid), JSON.parse(row.raw)]))
        : rows.map((row) => JSON.parse(row.raw));
    return value;
  }

  async remove(id: string): Promise<boolean> {
    if (!(await this.get(id))) throw notFound(`no lorebook ${id}`);
    await this.db.delete(lorebooks).where(eq(lorebooks.id, id));
    return true;
  }

  private async requireBooks(ids: string[]) {
    const books =
      ids.length === 0 ? [] : await this.db.select().from(lorebooks).where(inArray(lorebooks.id, ids));
    const missing = ids.filter((id) => !books.some((book) => book.id === id));
    if (missing.length > 0) throw notFound(`no lorebook ${missing.join(', ')}`);
    return new Map(books.map((book) => [book.id, book]));
  }

  /** The host tells which entries it put into the prompt; the server keeps a snapshot of them. */
  async recordActivation(raw: RecordActivationInput, actor: string): Promise<ActivationRow> {
    const input = parseInput(recordActivationInputSchema, raw);
    const books = await this.requireBooks([...new Set(input.entries.map((entry) => entry.lorebookId))]);
    const rows =
      input.entries.length === 0
        ? []
        : await this.db
            .select()
            .from(lorebookEntries)
            .where(inArray(lorebookEntries.lorebookId, [...books.keys()]));
    // Without a chat there are no names to put in, and the stored text is what the host sent.
    const macros = input.chatId ? (await this.characters.roleplay(input.chatId)).macros : null;
    const snapshots = input.entries.map((wanted): ActivationEntrySnapshot => {
      const row = rows.find(
        (candidate) => candidate.lorebookId === wanted.lorebookId && candidate.uid === wanted.uid,
      );
      if (!row) throw notFound(`lorebook ${wanted.lorebookId} has no entry with uid ${wanted.uid}`);
      // The host's own text as it sent it; the stored content with ST's macros as ST would put it.
      const content = wanted.content ?? (macros ? substituteMacros(row.content, macros) : row.content);
      return snapshotOf(books.get(row.lorebookId)!, row, content, null);
    });
    const [saved] = await this.db
      .insert(worldInfoActivations)
      .values({
        runId: input.runId ?? null,
        chatId: input.chatId ?? null,
        source: 'HOST',
        entries: snapshots,
        budget: null,
        createdBy: actor,
      })
      .returning();
    return saved!;
  }

  /**
   * Scans the chat's newest messages with the books' keys (see activation.ts for the subset of
   * SillyTavern's behaviour) and records the result like a host activation.
   */
  async computeActivation(raw: ComputeActivationInput, actor: string): Promise<ActivationRow> {
    const input = parseInput(computeActivationInputSchema, raw);
    await this.chats.require(input.chatId);
    const books = await this.requireBooks(input.lorebookIds);
    const rows = await this.db
      .select()
      .from(lorebookEntries)
      .where(inArray(lorebookEntries.lorebookId, input.lorebookIds))
      .orderBy(asc(lorebookEntries.ordinal));
    const ordered = input.lorebookIds.flatMap((id) => rows.filter((row) => row.lorebookId === id));
    // ST substitutes macros in keys before matching and in content before the budget; the stored
    // entries keep the text as imported.
    const { macros } = await this.characters.roleplay(input.chatId);
    const substitute = (text: string) => substituteMacros(text, macros);
    const entries = ordered.map(
      (row): WorldInfoEntry => ({
        ...row.fields,
        key: row.fields.key.map(substitute),
        keysecondary: row.fields.keysecondary.map(substitute),
        content: substitute(row.fields.content),
        raw: JSON.parse(row.raw) as JsonObject,
      }),
    );
    const rowOf = new Map(entries.map((entry, i) => [entry, ordered[i]!]));

    const globalDepth = input.scanDepth ?? DEFAULT_SCAN_DEPTH;
    const depth = Math.min(
      Math.max(globalDepth, ...entries.map((entry) => entry.scanDepth ?? 0)),
      MAX_SCAN_DEPTH,
    );
    const messages = depth === 0 ? [] : await this.chats.recentForScan(input.chatId, depth);
    const result = activateWorldInfo(entries, messages, {
      scanDepth: globalDepth,
      ...(input.caseSensitive != null ? { caseSensitive: input.caseSensitive } : {}),
      ...(input.matchWholeWords != null ? { matchWholeWords: input.matchWholeWords } : {}),
      ...(input.includeNames != null ? { includeNames: input.includeNames } : {}),
      budget: input.budget ?? null,
    });
    const snapshots = result.activated.map((activated) => {
      const row = rowOf.get(activated.entry)!;
      return snapshotOf(books.get(row.lorebookId)!, row, activated.entry.content, activated.matchedKey);
    });
    const [saved] = await this.db
      .insert(worldInfoActivations)
      .values({
        runId: input.runId ?? null,
        chatId: input.chatId,
        source: 'COMPUTED',
        entries: snapshots,
        budget: {
          limit: result.budget.limit,
          used: result.budget.used,
          overflowed: result.budget.overflowed,
        },
        createdBy: actor,
      })
      .returning();
    return saved!;
  }

  /** The run's newest activation, else its chat's newest: what `worldinfo.read_activated` reads. */
  async latestActivation(scope: {
    runId?: string | null;
    chatId?: string | null;
  }): Promise<ActivationRow | null> {
    const newest = async (condition: SQL) => {
      const [row] = await this.db
        .select()
        .from(worldInfoActivations)
        .where(condition)
        .orderBy(desc(worldInfoActivations.createdAt))
        .limit(1);
      return row ?? null;
    };
    const runId = scope.runId && z.uuid().safeParse(scope.runId).success ? scope.runId : null;
    const forRun = runId ? await newest(eq(worldInfoActivations.runId, runId)) : null;
    if (forRun) return forRun;
    return scope.chatId ? newest(eq(worldInfoActivations.chatId, scope.chatId)) : null;
  }
}

function snapshotOf(
  book: LorebookRow,
  row: LorebookEntryRow,
  content: string,
  matchedKey: string | null,
): ActivationEntrySnapshot {
  return {
    ref: entryRef(book.id, row.uid),
    lorebookId: book.id,
    lorebookName: book.name,
    uid: row.uid,
    name: row.name,
    position: row.fields.position,
    depth: row.fields.depth,
    role: row.fields.role,
    constant: row.fields.constant,
    order: row.fields.order,
    content,
    size: codePoints(content),
    matchedKey,
  };
}
