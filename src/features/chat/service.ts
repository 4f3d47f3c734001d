import { and, asc, desc, eq, gt, lt, type SQL, sql } from 'drizzle-orm';
import { ownedScope, ownerUserIdSchema, readAccess } from '../../calls/index.js';
import type { Principal } from '../../core/auth.js';
import { notFound } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import type { Db } from '../../db/client.js';
import { rowsOf, type Tx } from '../../db/tx.js';
import { type AppendResult, appendChatMessages } from './append.js';
import {
  decodeHistoryCursor,
  encodeHistoryCursor,
  type HistoryPosition,
  type PageCandidate,
  planHistoryPage,
} from './rules/history.js';
import type { ChatRole } from './rules/jsonl.js';
import { searchChat } from './search-query.js';
import {
  type ChatRow,
  type ChatSearchInput,
  HISTORY_DEFAULT_LIMIT,
  HISTORY_DEFAULT_MAX_CHARS,
  type HistoryInput,
  type HistoryMessage,
  type HistoryPage,
  historyInputSchema,
  type ImportChatOptions,
  iso,
  messageRef,
  type SearchResult,
} from './shapes.js';
import { chatMessages, chats } from './tables.js';
import { chatLines, chatText, importChatInto } from './transfer.js';

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

  /**
   * The chat if this principal may read it (resource-access.ts: admins and hosts every chat,
   * people their users', agents their user's that one of their runs names); null otherwise, as
   * if it did not exist.
   */
  async visible(principal: Principal, id: string): Promise<ChatRow | null> {
    const chat = await this.get(id);
    if (!chat) return null;
    return (await readAccess(this.db, principal, 'chat', chat)) ? chat : null;
  }

  /** `visible`, NOT_FOUND when not. */
  async requireVisible(principal: Principal, id: string): Promise<ChatRow> {
    const chat = await this.visible(principal, id);
    if (!chat) throw notFound(`no chat ${id}`);
    return chat;
  }

  /** The owner, in the caller's transaction: what a run checks when it names the chat. */
  async owner(tx: Tx, id: string): Promise<{ ownerUserId: string | null } | null> {
    const [row] = await tx
      .select({ ownerUserId: chats.ownerUserId })
      .from(chats)
      .where(eq(chats.id, id))
      .for('share');
    return row ?? null;
  }

  /** Gives a chat to another user (null: to nobody); NOT_FOUND when there is none. */
  async setOwner(id: string, userId: string | null): Promise<ChatRow> {
    const ownerUserId = parseInput(ownerUserIdSchema, userId);
    const [row] = await this.db.update(chats).set({ ownerUserId }).where(eq(chats.id, id)).returning();
    if (!row) throw notFound(`no chat ${id}`);
    return row;
  }

  /**
   * Keyset page ordered by id, the shape Pothos' resolveCursorConnection asks for; with a
   * principal, only the chats it may read.
   */
  page(
    args: {
      after?: string | null;
      before?: string | null;
      limit: number;
      inverted: boolean;
    },
    principal: Principal | null = null,
  ): Promise<ChatRow[]> {
    const conditions: SQL[] = [];
    const scope = principal
      ? ownedScope(principal, 'chat', { id: chats.id, owner: chats.ownerUserId })
      : undefined;
    if (scope) conditions.push(scope);
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
  importChat(
    source: string | AsyncIterable<string | Uint8Array>,
    options: ImportChatOptions,
  ): Promise<ChatRow> {
    return importChatInto(this.db, source, options);
  }

  /** Appends SillyTavern messages after the last one (append.ts); search and history see them at once. */
  appendMessages(principal: Principal, chatId: string, messages: readonly unknown[]): Promise<AppendResult> {
    return appendChatMessages(this.db, principal, chatId, messages);
  }

  /** The file again, line by line in original order, paging through messages by index. */
  async *exportChat(id: string): AsyncGenerator<string> {
    yield* chatLines(this.db, await this.require(id));
  }

  /** The whole file as one string, for callers that cannot stream (GraphQL); big chats go through the CLI. */
  async exportChatText(id: string, principal: Principal | null = null): Promise<string> {
    return chatText(this.db, await (principal ? this.requireVisible(principal, id) : this.require(id)));
  }

  /** Ranked substring search inside Postgres; see rules/search.ts for what matches and why the indexes are exact. */
  search(chatId: string, raw: ChatSearchInput): Promise<SearchResult> {
    return searchChat(this.db, chatId, raw);
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

  /**
   * The newest message, the newest user message and the newest character message (hidden and
   * non-standard lines excluded): what SillyTavern's `{{lastMessage}}`, `{{lastUserMessage}}` and
   * `{{lastCharMessage}}` read, and whose names stand for `{{user}}` and `{{char}}` when the
   * chat's header does not give them.
   */
  async lastSpeakers(chatId: string): Promise<LastSpeakers> {
    const rows = rowsOf<{ is_user: boolean; name: string; text: string; idx: number }>(
      await this.db.execute(sql`
        select distinct on (is_user) is_user, name, "text", idx from chat_messages
        where chat_id = ${chatId} and not is_system and not non_standard
        order by is_user, idx desc`),
    );
    const pick = (row: (typeof rows)[number] | undefined) =>
      row ? { name: row.name, text: row.text } : null;
    const user = rows.find((row) => row.is_user);
    const char = rows.find((row) => !row.is_user);
    const last = [user, char].filter((row) => row !== undefined).sort((a, b) => b.idx - a.idx)[0];
    return { last: pick(last), user: pick(user), char: pick(char) };
  }
}

export interface LastSpeakers {
  last: { name: string; text: string } | null;
  user: { name: string; text: string } | null;
  char: { name: string; text: string } | null;
}
