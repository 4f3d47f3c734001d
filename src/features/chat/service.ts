import { createHash, randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gt, lt, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { badInput, conflict, DomainError, notFound } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import { storableText } from '../../core/unicode.js';
import type { Db } from '../../db/client.js';
import { chatMessages, chats } from './tables.js';
import { type Executor, rowsOf } from '../../db/tx.js';
import {
  decodeHistoryCursor,
  encodeHistoryCursor,
  type HistoryPosition,
  type PageCandidate,
  planHistoryPage,
} from './rules/history.js';
import {
  ChatJsonlReader,
  type ChatLine,
  type ChatMessage,
  type ChatRole,
  chatRoles,
  type LineEnding,
} from './rules/jsonl.js';
import {
  estimateMatchFraction,
  MAX_TERM_LENGTH,
  MAX_TERMS,
  planChatSearch,
  splitTerms,
} from './rules/search.js';

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
const SNIPPET_BEFORE = 60;
const SNIPPET_LENGTH = 200;
export const HISTORY_DEFAULT_LIMIT = 20;
export const HISTORY_DEFAULT_MAX_CHARS = 8_000;
const INSERT_BATCH_ROWS = 1_000;
const INSERT_BATCH_CHARS = 4_000_000;
const EXPORT_PAGE_ROWS = 5_000;
const MAX_EXPORT_TEXT_BYTES = 64 * 1024 * 1024;

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

interface SearchStats {
  at: number;
  rows: number;
  frequency: Map<string, number>;
}

/** Reading pg_stats takes milliseconds; a search should not. Keyed by database, as services are per call. */
const statsCache = new WeakMap<Db, SearchStats>();
const STATS_TTL_MS = 60_000;

export const messageRef = (chatId: string, index: number) => `chat:${chatId}#${index}`;

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

const iso = (value: unknown): string | null =>
  value === null || value === undefined ? null : new Date(value as string).toISOString();

interface MessageRecord {
  idx: number;
  line: number;
  role: ChatRole;
  name: string;
  text: string;
  is_user: boolean;
  is_system: boolean;
  non_standard: boolean;
  send_date: string | number | null;
  sent_at: string | null;
  raw: string;
  eol: LineEnding;
}

function recordOf(message: ChatMessage, line: ChatLine): MessageRecord {
  return {
    idx: message.index,
    line: message.lineNumber,
    role: message.role,
    // The raw line keeps the original escapes; the columns hold what Postgres can store.
    name: storableText(message.name),
    text: storableText(message.text),
    is_user: message.isUser,
    is_system: message.isSystem,
    non_standard: message.nonStandard,
    send_date: message.sendDate,
    sent_at: message.sendDateIso,
    raw: line.text,
    eol: line.eol,
  };
}

async function insertMessages(tx: Executor, chatId: string, records: MessageRecord[]): Promise<void> {
  if (records.length === 0) return;
  // One JSON parameter per batch: a fixed statement whatever the batch size, and far below the
  // 65,535-parameter limit that a multi-row VALUES of this width would reach.
  await tx.execute(sql`
    insert into chat_messages
      (chat_id, idx, line_number, role, name, text, is_user, is_system, non_standard, send_date, sent_at, raw, eol)
    select ${chatId}, r.idx, r.line, r.role, r.name, r.text, r.is_user, r.is_system, r.non_standard,
           r.send_date, r.sent_at, r.raw::json, r.eol
    from json_to_recordset(${JSON.stringify(records)}::json) as r(
      idx int, line int, role text, name text, text text, is_user boolean, is_system boolean,
      non_standard boolean, send_date jsonb, sent_at timestamptz, raw text, eol text)`);
}

async function* chunksOf(
  source: string | AsyncIterable<string | Uint8Array>,
): AsyncGenerator<{ text: string; bytes: number }> {
  if (typeof source === 'string') {
    yield { text: source, bytes: Buffer.byteLength(source) };
    return;
  }
  // ignoreBOM keeps a leading BOM in the text: the parser records it so that export writes it back.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  for await (const chunk of source) {
    if (typeof chunk === 'string') yield { text: chunk, bytes: Buffer.byteLength(chunk) };
    else yield { text: decoder.decode(chunk, { stream: true }), bytes: chunk.byteLength };
  }
  const rest = decoder.decode();
  if (rest !== '') yield { text: rest, bytes: 0 };
}

export class ChatService {
  constructor(private readonly db: Db) {}

  async get(id: string): Promise<ChatRow | null> {
    const [row] = await this.db.select().from(chats).where(eq(chats.id, id)).limit(1);
    return row ?? null;
  }

  async require(id: string): Promise<ChatRow> {
    const chat = await this.get(id);
    if (!chat) throw notFound(`no chat ${id}`);
    return chat;
  }

  /** Keyset page ordered by id, the shape Pothos' resolveCursorConnection asks for. */
  page(args: {
    after?: string | null;
    before?: string | null;
    limit: number;
    inverted: boolean;
  }): Promise<ChatRow[]> {
    const conditions: SQL[] = [];
    if (args.after) conditions.push(gt(chats.id, args.after));
    if (args.before) conditions.push(lt(chats.id, args.before));
    return this.db
      .select()
      .from(chats)
      .where(and(...conditions))
      .orderBy(args.inverted ? desc(chats.id) : asc(chats.id))
      .limit(args.limit);
  }

  /** Messages by index for UIs; the raw line is returned as stored. */
  messagesPage(
    chatId: string,
    args: {
      after?: number | null;
      before?: number | null;
      role?: ChatRole | null;
      limit: number;
      inverted: boolean;
    },
  ) {
    const conditions: SQL[] = [eq(chatMessages.chatId, chatId)];
    if (args.after != null) conditions.push(gt(chatMessages.index, args.after));
    if (args.before != null) conditions.push(lt(chatMessages.index, args.before));
    if (args.role) conditions.push(eq(chatMessages.role, args.role));
    return this.db
      .select({
        chatId: chatMessages.chatId,
        index: chatMessages.index,
        role: chatMessages.role,
        name: chatMessages.name,
        text: chatMessages.text,
        isUser: chatMessages.isUser,
        isSystem: chatMessages.isSystem,
        nonStandard: chatMessages.nonStandard,
        sendDate: chatMessages.sendDate,
        sentAt: chatMessages.sentAt,
        raw: sql<string>`${chatMessages.raw}::text`,
      })
      .from(chatMessages)
      .where(and(...conditions))
      .orderBy(args.inverted ? desc(chatMessages.index) : asc(chatMessages.index))
      .limit(args.limit);
  }

  /**
   * Streams a SillyTavern JSONL file into the database in one transaction: a failing line leaves
   * nothing behind. Progress is reported after every batch.
   */
  async importChat(
    source: string | AsyncIterable<string | Uint8Array>,
    options: ImportChatOptions,
  ): Promise<ChatRow> {
    const id = options.id == null ? randomUUID() : parseInput(chatIdSchema, options.id);
    const reader = new ChatJsonlReader();
    const hash = createHash('sha256');
    const progress: ImportProgress = { bytes: 0, lines: 0, messages: 0 };
    const blankLines: ChatRow['blankLines'] = [];
    let byteSize = 0;
    let batch: MessageRecord[] = [];
    let batchChars = 0;
    let headerSeen = false;

    const chat = await this.db.transaction(async (tx) => {
      const [existing] = await tx.select({ id: chats.id }).from(chats).where(eq(chats.id, id)).for('update');
      if (existing && !options.replace) throw conflict(`a chat with id ${id} exists already`, { id });
      if (existing) await tx.delete(chats).where(eq(chats.id, id));

      const flush = async () => {
        await insertMessages(tx, id, batch);
        progress.messages += batch.length;
        batch = [];
        batchChars = 0;
        options.onProgress?.({ ...progress });
      };
      const take = async (lines: ChatLine[]) => {
        for (const line of lines) {
          progress.lines = line.lineNumber;
          if (line.kind === 'blank') {
            blankLines.push({ lineNumber: line.lineNumber, text: line.text, eol: line.eol });
          } else if (line.kind === 'header') {
            headerSeen = true;
            const header = line.header;
            await tx.insert(chats).values({
              id,
              fileName: options.fileName ?? null,
              headerShape: header.shape,
              userName: header.userName,
              characterName: header.characterName,
              createDate: header.createDateIso ? new Date(header.createDateIso) : null,
              header: line.text,
              headerLine: line.lineNumber,
              headerBom: line.bom,
              headerEol: line.eol,
              blankLines: [],
              messageCount: 0,
              byteSize: 0,
              sha256: '',
              importedBy: options.actor,
            });
          } else {
            batch.push(recordOf(line.message, line));
            batchChars += line.text.length;
            if (batch.length >= INSERT_BATCH_ROWS || batchChars >= INSERT_BATCH_CHARS) await flush();
          }
        }
      };

      for await (const chunk of chunksOf(source)) {
        hash.update(chunk.text);
        byteSize += Buffer.byteLength(chunk.text);
        progress.bytes += chunk.bytes;
        await take(reader.push(chunk.text));
      }
      await take(reader.end());
      if (!headerSeen) throw badInput('the chat file has no header line');
      await flush();
      const [saved] = await tx
        .update(chats)
        .set({ blankLines, messageCount: reader.messagesRead, byteSize, sha256: hash.digest('hex') })
        .where(eq(chats.id, id))
        .returning();
      return saved!;
    });
    // GIN indexes buffer new entries in a pending list that every search scans linearly until a
    // vacuum merges it; PGlite never autovacuums, so merge now. ANALYZE gives the planner the
    // statistics it needs to pick the search indexes on a fresh table.
    await this.db.execute(sql`select gin_clean_pending_list('chat_messages_search_idx'::regclass)`);
    await this.db.execute(sql`select gin_clean_pending_list('chat_messages_latin_trgm_idx'::regclass)`);
    await this.db.execute(sql`analyze chat_messages`);
    statsCache.delete(this.db);
    return chat;
  }

  /** The file again, line by line in original order, paging through messages by index. */
  async *exportChat(id: string): AsyncGenerator<string> {
    const chat = await this.require(id);
    const [header] = rowsOf<{ header: string }>(
      await this.db.execute(sql`select header::text as header from chats where id = ${id}`),
    );
    const extra = [
      ...chat.blankLines.map((line) => ({ lineNumber: line.lineNumber, text: line.text + line.eol })),
      {
        lineNumber: chat.headerLine,
        text: (chat.headerBom ? '\uFEFF' : '') + header!.header + chat.headerEol,
      },
    ].sort((a, b) => a.lineNumber - b.lineNumber);
    let pending = 0;
    const before = function* (lineNumber: number) {
      while (pending < extra.length && extra[pending]!.lineNumber < lineNumber) yield extra[pending++]!.text;
    };
    let after = -1;
    for (;;) {
      const rows = rowsOf<{ idx: number; line_number: number; raw: string; eol: string }>(
        await this.db.execute(sql`
          select idx, line_number, raw::text as raw, eol from chat_messages
          where chat_id = ${id} and idx > ${after} order by idx limit ${EXPORT_PAGE_ROWS}`),
      );
      for (const row of rows) {
        yield* before(row.line_number);
        yield row.raw + row.eol;
      }
      if (rows.length < EXPORT_PAGE_ROWS) break;
      after = rows.at(-1)!.idx;
    }
    yield* before(Number.POSITIVE_INFINITY);
  }

  /** The whole file as one string, for callers that cannot stream (GraphQL); big chats go through the CLI. */
  async exportChatText(id: string): Promise<string> {
    const chat = await this.require(id);
    if (chat.byteSize > MAX_EXPORT_TEXT_BYTES) {
      throw new DomainError(
        'FAILED_PRECONDITION',
        `chat ${id} is ${chat.byteSize} bytes, more than one response carries (${MAX_EXPORT_TEXT_BYTES}); export it with \`npm run cli -- chat export ${id} <file>\``,
      );
    }
    const parts: string[] = [];
    for await (const part of this.exportChat(id)) parts.push(part);
    return parts.join('');
  }

  /** Ranked substring search inside Postgres; see chat-search.ts for what matches and why the indexes are exact. */
  async search(chatId: string, raw: ChatSearchInput): Promise<SearchResult> {
    const input = parseInput(chatSearchInputSchema, raw);
    const plan = planChatSearch(input.query);
    const stats = plan.indexed ? await this.searchStats() : null;
    // Without the index predicates Postgres reads the chat newest first and stops once the
    // ranking window is full: cheaper than fetching every match of a common term.
    const newestFirst =
      stats !== null &&
      estimateMatchFraction(plan, (lexeme) => stats.frequency.get(lexeme)) >=
        Math.sqrt(RANK_WINDOW / Math.max(stats.rows, 1));
    const conditions: SQL[] = [sql`chat_id = ${chatId}`];
    if (plan.bigramQuery && !newestFirst) conditions.push(sql`search @@ ${plan.bigramQuery}::tsquery`);
    for (const term of plan.terms) {
      if (!newestFirst) {
        for (const pattern of term.latinPatterns)
          conditions.push(sql`ats_latin_text("text") ilike ${pattern}`);
      }
      conditions.push(sql`"text" ilike ${term.pattern}`);
    }
    if (input.roles)
      conditions.push(
        sql`role in (${sql.join(
          input.roles.map((role) => sql`${role}`),
          sql`, `,
        )})`,
      );
    if (input.fromIndex != null) conditions.push(sql`idx >= ${input.fromIndex}`);
    if (input.toIndex != null) conditions.push(sql`idx <= ${input.toIndex}`);

    const occurrences = plan.terms.map(
      (term) =>
        sql`(char_length(lower(m."text")) - char_length(replace(lower(m."text"), lower(${term.text}), ''))) / char_length(lower(${term.text}))`,
    );
    const wholeWords = plan.terms
      .filter((term) => term.latinOnly)
      .map((term) => sql`(m.search @@ plainto_tsquery('simple', ${term.text}))::int`);
    const score = sql.join([...occurrences, ...wholeWords], sql` + `);
    const first = plan.terms[0]!.text;

    const rows = rowsOf<{
      idx: number;
      role: ChatRole;
      name: string;
      sent_at: unknown;
      score: number;
      matched: number;
      chars: number;
      snippet_start: number;
      snippet: string;
    }>(
      await this.db.execute(sql`
        with candidates as materialized (
          select idx from chat_messages where ${sql.join(conditions, sql` and `)}
          order by idx desc limit ${RANK_WINDOW + 1}
        ),
        best as (
          select m.idx, m.role, m.name, m.sent_at, m."text", (${score})::int as score
          from candidates c join chat_messages m on m.chat_id = ${chatId} and m.idx = c.idx
          order by score desc, m.idx desc limit ${input.limit ?? SEARCH_DEFAULT_LIMIT}
        )
        select idx, role, name, sent_at, score, (select count(*) from candidates)::int as matched,
               char_length("text") as chars, from_char - 1 as snippet_start,
               substr("text", from_char, ${SNIPPET_LENGTH}) as snippet
        from (select *, greatest(strpos(lower("text"), lower(${first})) - ${SNIPPET_BEFORE}, 1) as from_char from best) located
        order by score desc, idx desc`),
    );
    // No rows may also mean no such chat; asked only then, so a search with hits is one query.
    if (rows.length === 0) await this.require(chatId);
    const matched = rows[0]?.matched ?? 0;
    return {
      chatId,
      terms: plan.terms.map((term) => term.text),
      hits: rows.map((row) => {
        const shown = codePoints(row.snippet);
        const flat = row.snippet.replace(/\s+/g, ' ').trim();
        return {
          ref: messageRef(chatId, row.idx),
          index: row.idx,
          role: row.role,
          name: row.name,
          sentAt: iso(row.sent_at),
          score: Number(row.score),
          snippet: `${row.snippet_start > 0 ? '…' : ''}${flat}${row.snippet_start + shown < row.chars ? '…' : ''}`,
          snippetStart: row.snippet_start,
          chars: row.chars,
          cursor: encodeHistoryCursor(chatId, { index: row.idx + 1, end: null }),
        };
      }),
      matched: Math.min(matched, RANK_WINDOW),
      capped: matched > RANK_WINDOW,
    };
  }

  /** Table size and lexeme frequencies of the search vector, as ANALYZE last saw them; cached briefly. */
  private async searchStats(): Promise<SearchStats> {
    const cached = statsCache.get(this.db);
    if (cached && Date.now() - cached.at < STATS_TTL_MS) return cached;
    const [row] = rowsOf<{ rows: number; elems: string[] | null; freqs: number[] | null }>(
      await this.db.execute(sql`
        select c.reltuples::float8 as rows, s.most_common_elems::text::text[] as elems, s.most_common_elem_freqs as freqs
        from pg_class c
        left join pg_stats s on s.schemaname = current_schema() and s.tablename = 'chat_messages' and s.attname = 'search'
        where c.oid = 'chat_messages'::regclass`),
    );
    const freqs = row?.freqs ?? [];
    const stats: SearchStats = {
      at: Date.now(),
      rows: Math.max(Number(row?.rows ?? 0), 0),
      frequency: new Map((row?.elems ?? []).map((lexeme, i) => [lexeme, Number(freqs[i] ?? 0)])),
    };
    statsCache.set(this.db, stats);
    return stats;
  }

  /** The most recent messages within the budget (cursor absent), or the page before a cursor. */
  async history(chatId: string, raw: HistoryInput): Promise<HistoryPage> {
    const input = parseInput(historyInputSchema, raw);
    const chat = await this.require(chatId);
    const limit = input.limit ?? HISTORY_DEFAULT_LIMIT;
    const maxChars = input.maxChars ?? HISTORY_DEFAULT_MAX_CHARS;
    const position: HistoryPosition = input.cursor
      ? decodeHistoryCursor(input.cursor, chatId)
      : { index: chat.messageCount, end: null };

    const lengths = rowsOf<{ idx: number; chars: number }>(
      await this.db.execute(sql`
        select idx, char_length("text") as chars from chat_messages
        where chat_id = ${chatId} and idx < ${position.index}
        order by idx desc limit ${limit}`),
    );
    const candidates: PageCandidate[] = lengths.map((row) => ({ index: row.idx, chars: row.chars }));
    if (position.end !== null && position.index < chat.messageCount) {
      candidates.unshift({ index: position.index, chars: position.end });
    }
    const plan = planHistoryPage(candidates, maxChars, limit);
    if (plan.slices.length === 0) {
      return { chatId, messageCount: chat.messageCount, messages: [], nextCursor: null, continuation: null };
    }

    const slices = plan.slices.map((slice) => ({
      idx: slice.index,
      start: slice.start,
      len: slice.end - slice.start,
    }));
    const rows = rowsOf<{
      idx: number;
      role: ChatRole;
      name: string;
      sent_at: unknown;
      chars: number;
      part: string;
    }>(
      await this.db.execute(sql`
        select m.idx, m.role, m.name, m.sent_at, char_length(m."text") as chars, substr(m."text", s.start + 1, s.len) as part
        from json_to_recordset(${JSON.stringify(slices)}::json) as s(idx int, start int, len int)
        join chat_messages m on m.chat_id = ${chatId} and m.idx = s.idx
        order by m.idx`),
    );
    const sliceOf = new Map(plan.slices.map((slice) => [slice.index, slice]));
    const messages = rows.map((row): HistoryMessage => {
      const slice = sliceOf.get(row.idx)!;
      return {
        ref: messageRef(chatId, row.idx),
        index: row.idx,
        role: row.role,
        name: row.name,
        sentAt: iso(row.sent_at),
        text: row.part,
        chars: row.chars,
        truncated: slice.start > 0 || slice.end < row.chars,
        start: slice.start,
        end: slice.end,
      };
    });
    const nextCursor = plan.next ? encodeHistoryCursor(chatId, plan.next) : null;
    const cut = messages.find((message) => message.truncated);
    const continuation =
      cut && plan.next?.end != null
        ? `Message #${cut.index} is longer than the budget: only characters ${cut.start}-${cut.end} of ${cut.chars} are shown. ` +
          `Its first ${cut.start} characters come next: call chat.read_history_before with cursor "${nextCursor}".`
        : null;
    return { chatId, messageCount: chat.messageCount, messages, nextCursor, continuation };
  }

  /**
   * The newest messages a world-info scan reads (hidden and non-standard lines excluded, as
   * SillyTavern does), oldest first.
   */
  async recentForScan(chatId: string, depth: number) {
    const rows = rowsOf<{ name: string; text: string }>(
      await this.db.execute(sql`
        select name, "text" from chat_messages
        where chat_id = ${chatId} and not is_system and not non_standard
        order by idx desc limit ${depth}`),
    );
    return rows.reverse().map((row) => ({ name: row.name, text: row.text }));
  }
}
