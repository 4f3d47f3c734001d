import { createHash, randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { ownerUserIdSchema } from '../../calls/index.js';
import { badInput, conflict, DomainError } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import { storableText } from '../../core/unicode.js';
import type { Db } from '../../db/client.js';
import { type Executor, rowsOf } from '../../db/tx.js';
import {
  ChatJsonlReader,
  type ChatLine,
  type ChatMessage,
  type ChatRole,
  type LineEnding,
} from './rules/jsonl.js';
import { forgetSearchStats } from './search-query.js';
import { type ChatRow, chatIdSchema, type ImportChatOptions, type ImportProgress } from './shapes.js';
import { chats } from './tables.js';

const INSERT_BATCH_ROWS = 1_000;

const INSERT_BATCH_CHARS = 4_000_000;

const EXPORT_PAGE_ROWS = 5_000;

const MAX_EXPORT_TEXT_BYTES = 64 * 1024 * 1024;

export interface MessageRecord {
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

export function recordOf(message: ChatMessage, line: ChatLine): MessageRecord {
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

export async function insertMessages(tx: Executor, chatId: string, records: MessageRecord[]): Promise<void> {
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

/**
 * Streams a SillyTavern JSONL file into the database in one transaction: a failing line leaves
 * nothing behind. Progress is reported after every batch.
 */
export async function importChatInto(
  db: Db,
  source: string | AsyncIterable<string | Uint8Array>,
  options: ImportChatOptions,
): Promise<ChatRow> {
  const id = options.id == null ? randomUUID() : parseInput(chatIdSchema, options.id);
  const ownerUserId = parseInput(ownerUserIdSchema, options.ownerUserId ?? null);
  const reader = new ChatJsonlReader();
  const hash = createHash('sha256');
  const progress: ImportProgress = { bytes: 0, lines: 0, messages: 0 };
  const blankLines: ChatRow['blankLines'] = [];
  let byteSize = 0;
  let batch: MessageRecord[] = [];
  let batchChars = 0;
  let headerSeen = false;

  const chat = await db.transaction(async (tx) => {
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
            ownerUserId,
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
  await db.execute(sql`select gin_clean_pending_list('chat_messages_search_idx'::regclass)`);
  await db.execute(sql`select gin_clean_pending_list('chat_messages_latin_trgm_idx'::regclass)`);
  await db.execute(sql`analyze chat_messages`);
  forgetSearchStats(db);
  return chat;
}

/** The file again, line by line in original order, paging through messages by index. */
export async function* chatLines(db: Executor, chat: ChatRow): AsyncGenerator<string> {
  const id = chat.id;
  const [header] = rowsOf<{ header: string }>(
    await db.execute(sql`select header::text as header from chats where id = ${id}`),
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
      await db.execute(sql`
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
export async function chatText(db: Db, chat: ChatRow): Promise<string> {
  const id = chat.id;
  if (chat.byteSize > MAX_EXPORT_TEXT_BYTES) {
    throw new DomainError(
      'FAILED_PRECONDITION',
      `chat ${id} is ${chat.byteSize} bytes, more than one response carries (${MAX_EXPORT_TEXT_BYTES}); export it with \`npm run cli -- chat export ${id} <file>\``,
    );
  }
  const parts: string[] = [];
  for await (const part of chatLines(db, chat)) parts.push(part);
  return parts.join('');
}
