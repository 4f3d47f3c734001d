import { desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { notFound } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import { parseInput } from '../../core/parse-input.js';
import type { Db } from '../../db/client.js';
import type { ChatService } from '../chat/index.js';
import { detectBook, fromPng, insertBook, type SourceText, sourceText } from './books.js';
import { type CardSpecName, type CharacterFields, cardAs, parseCardJson, readCard } from './rules/card.js';
import { isPng } from './rules/card-png.js';
import type { MacroEnv } from './rules/macros.js';
import { characters } from './tables.js';

export type CharacterRow = typeof characters.$inferSelect;

const MAX_CARD_JSON = 16 * 1024 * 1024;
const MAX_PNG_BASE64_CHARS = 48 * 1024 * 1024;

export const importCharacterInputSchema = z
  .object({
    json: z.string().min(2).max(MAX_CARD_JSON).nullish(),
    pngBase64: z.string().min(1).max(MAX_PNG_BASE64_CHARS).nullish(),
    fileName: z.string().trim().min(1).max(500).nullish(),
  })
  .refine((input) => (input.json == null) !== (input.pngBase64 == null), {
    path: ['json'],
    message: 'give either json or pngBase64',
  });
export type ImportCharacterInput = z.input<typeof importCharacterInputSchema>;

/** Header names newer SillyTavern versions write instead of the real ones. */
const PLACEHOLDER_NAMES = new Set(['', 'unused']);
const realName = (name: string | null | undefined) =>
  name != null && !PLACEHOLDER_NAMES.has(name.trim()) ? name : null;

/** What a chat's prompt knows of its people: the character (if imported) and the macro values. */
export interface Roleplay {
  character: (CharacterFields & { id: string }) | null;
  macros: MacroEnv;
}

export const fieldsOf = (row: CharacterRow): CharacterFields =>
  readCard(JSON.parse(row.card) as JsonObject).fields;

/**
 * Character cards: stored whole (the card's JSON text as imported), with the embedded book
 * imported as a lorebook in the same transaction, exported in V2 or V3 form.
 */
export class CharacterService {
  constructor(
    private readonly db: Db,
    private readonly chats: ChatService,
  ) {}

  list(): Promise<CharacterRow[]> {
    return this.db.select().from(characters).orderBy(characters.name, characters.id);
  }

  async get(id: string): Promise<CharacterRow | null> {
    if (!z.uuid().safeParse(id).success) return null;
    const [row] = await this.db.select().from(characters).where(eq(characters.id, id)).limit(1);
    return row ?? null;
  }

  async importCharacter(raw: ImportCharacterInput, actor: string): Promise<CharacterRow> {
    const input = parseInput(importCharacterInputSchema, raw);
    return this.store(sourceText(input), input.fileName ?? null, actor);
  }

  /** A card file read by the CLI: a PNG by its signature, JSON otherwise. */
  async importFile(bytes: Buffer, fileName: string, actor: string): Promise<CharacterRow> {
    const source = isPng(bytes) ? fromPng(bytes) : sourceText({ json: bytes.toString('utf8') });
    return this.store(source, fileName, actor);
  }

  private store(source: SourceText, fileName: string | null, actor: string): Promise<CharacterRow> {
    const parsed = parseCardJson(source.text);
    const book = parsed.card.data !== undefined ? cardBook(source.text, parsed.fields.name) : null;
    return this.db.transaction(async (tx) => {
      const lorebook = book ? await insertBook(tx, book, { name: book.book.name!, fileName, actor }) : null;
      const [row] = await tx
        .insert(characters)
        .values({
          name: parsed.fields.name,
          spec: parsed.spec,
          specVersion: parsed.specVersion,
          format: source.format,
          chunk: source.chunk,
          fileName,
          card: source.text,
          lorebookId: lorebook?.id ?? null,
          importNotes: [...parsed.notes, ...(book?.book.notes ?? [])],
          importedBy: actor,
        })
        .returning();
      return row!;
    });
  }

  async exportCard(id: string, spec: CardSpecName): Promise<JsonObject> {
    const row = await this.get(id);
    if (!row) throw notFound(`no character ${id}`);
    return cardAs(JSON.parse(row.card) as JsonObject, spec);
  }

  async remove(id: string): Promise<boolean> {
    if (!(await this.get(id))) throw notFound(`no character ${id}`);
    await this.db.delete(characters).where(eq(characters.id, id));
    return true;
  }

  private async named(name: string): Promise<CharacterRow | null> {
    const [row] = await this.db
      .select()
      .from(characters)
      .where(eq(characters.name, name))
      .orderBy(desc(characters.importedAt), desc(characters.id))
      .limit(1);
    return row ?? null;
  }

  /**
   * The chat's character and the values of SillyTavern's macros for it. SillyTavern keeps a chat
   * under its character; here a chat names it in its header's `character_name` (or, when the
   * header says `unused`, by its newest character message), and the newest card of that name is
   * the character. `{{user}}` is the header's `user_name`, else the newest user message's name,
   * else ST's default `User`.
   */
  async roleplay(chatId: string | null, now: Date = new Date()): Promise<Roleplay> {
    const chat = chatId ? await this.chats.get(chatId) : null;
    const speakers = chat ? await this.chats.lastSpeakers(chat.id) : { last: null, user: null, char: null };
    const charName = realName(chat?.characterName) ?? speakers.char?.name ?? null;
    const row = charName ? await this.named(charName) : null;
    const fields = row ? fieldsOf(row) : null;
    return {
      character: row && fields ? { ...fields, id: row.id } : null,
      macros: {
        user: realName(chat?.userName) ?? speakers.user?.name ?? 'User',
        char: fields?.name ?? charName ?? '',
        description: fields?.description ?? '',
        personality: fields?.personality ?? '',
        scenario: fields?.scenario ?? '',
        persona: '',
        mesExamples: fields?.exampleMessages ?? '',
        charVersion: fields?.characterVersion ?? '',
        charPrompt: fields?.systemPrompt ?? '',
        charInstruction: fields?.postHistoryInstructions ?? '',
        lastMessage: speakers.last?.text ?? '',
        lastUserMessage: speakers.user?.text ?? '',
        lastCharMessage: speakers.char?.text ?? '',
        now,
      },
    };
  }
}

/** The card's book, or null when it has none (a card is a character first). */
function cardBook(text: string, characterName: string) {
  const value = JSON.parse(text) as JsonObject;
  const data = value.data as JsonObject | undefined;
  if (data?.character_book === undefined || data.character_book === null) return null;
  return detectBook(text, `${characterName}'s Lorebook`);
}
