import { createHash } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { mayReadOwned } from '../../calls/index.js';
import type { Principal } from '../../core/auth.js';
import { badInput, notFound } from '../../core/errors.js';
import type { Db } from '../../db/client.js';
import { rowsOf, type Tx } from '../../db/tx.js';
import { firstAppendProblem, MAX_APPEND_MESSAGES } from './rules/append.js';
import { parseChatLine } from './rules/jsonl.js';
import type { ChatRow } from './shapes.js';
import { chats } from './tables.js';
import { chatLines, insertMessages, type MessageRecord, recordOf } from './transfer.js';

export interface AppendResult {
  chat: ChatRow;
  /** The index the first appended message got; the others follow it. */
  firstIndex: number;
  count: number;
}

/**
 * Appends SillyTavern messages after the chat's last message, in one transaction under the chat
 * row's lock, so concurrent appends line up one after the other. Each message becomes the compact
 * line ST writes; the chat's size and sha256 follow, so an export is still the file the host has.
 * NOT_FOUND when there is no chat or it belongs to a user the caller is not bound to.
 */
export async function appendChatMessages(
  db: Db,
  principal: Principal,
  chatId: string,
  values: readonly unknown[],
): Promise<AppendResult> {
  if (values.length === 0) throw badInput('messages: append at least one message');
  if (values.length > MAX_APPEND_MESSAGES)
    throw badInput(`messages: at most ${MAX_APPEND_MESSAGES} per call, got ${values.length}`, {
      limit: MAX_APPEND_MESSAGES,
    });
  const bad = firstAppendProblem(values);
  if (bad) throw badInput(`messages[${bad.index}]: ${bad.problem}`, { index: bad.index });

  return db.transaction(async (tx) => {
    const [chat] = await tx.select().from(chats).where(eq(chats.id, chatId)).for('update');
    if (!chat || !mayReadOwned(principal, chat.ownerUserId)) throw notFound(`no chat ${chatId}`);
    const lastLine = await terminateLastLine(tx, chat);
    const records: MessageRecord[] = [];
    let bytes = lastLine.addedBytes;
    for (const [i, value] of values.entries()) {
      const line = parseChatLine(JSON.stringify(value), {
        lineNumber: lastLine.number + 1 + i,
        nextMessageIndex: chat.messageCount + i,
        eol: '\n',
      });
      // firstAppendProblem has checked each is an object, so the parser reads a message.
      if (line.kind !== 'message') throw new Error(`appended value ${i} parsed as a ${line.kind} line`);
      records.push(recordOf(line.message, line));
      bytes += Buffer.byteLength(line.text) + 1;
    }
    await insertMessages(tx, chat.id, records);
    const [grown] = await tx
      .update(chats)
      .set({
        messageCount: chat.messageCount + records.length,
        byteSize: chat.byteSize + bytes,
        headerEol: lastLine.headerEol,
        blankLines: lastLine.blankLines,
      })
      .where(eq(chats.id, chat.id))
      .returning();
    const hash = createHash('sha256');
    for await (const part of chatLines(tx, grown!)) hash.update(part);
    const [saved] = await tx
      .update(chats)
      .set({ sha256: hash.digest('hex') })
      .where(eq(chats.id, chat.id))
      .returning();
    return { chat: saved!, firstIndex: chat.messageCount, count: records.length };
  });
}

/**
 * The file's last line number, after giving that line a newline when the file ended without one
 * (else the first appended message would continue it). The last line is the last message, the
 * header or a kept blank line, whichever comes last.
 */
async function terminateLastLine(tx: Tx, chat: ChatRow) {
  const [lastMessage] = rowsOf<{ idx: number; line_number: number; eol: string }>(
    await tx.execute(sql`
      select idx, line_number, eol from chat_messages
      where chat_id = ${chat.id} order by idx desc limit 1`),
  );
  const lastBlank = chat.blankLines.at(-1);
  const candidates = [
    { number: chat.headerLine, open: chat.headerEol === '', kind: 'header' as const },
    ...(lastMessage
      ? [{ number: lastMessage.line_number, open: lastMessage.eol === '', kind: 'message' as const }]
      : []),
    ...(lastBlank
      ? [{ number: lastBlank.lineNumber, open: lastBlank.eol === '', kind: 'blank' as const }]
      : []),
  ];
  const last = candidates.reduce((a, b) => (b.number > a.number ? b : a));
  let headerEol = chat.headerEol;
  let blankLines = chat.blankLines;
  if (last.open && last.kind === 'header') headerEol = '\n';
  if (last.open && last.kind === 'blank')
    blankLines = [...blankLines.slice(0, -1), { ...lastBlank!, eol: '\n' as const }];
  if (last.open && last.kind === 'message')
    await tx.execute(
      sql`update chat_messages set eol = ${'\n'} where chat_id = ${chat.id} and idx = ${lastMessage!.idx}`,
    );
  return { number: last.number, addedBytes: last.open ? 1 : 0, headerEol, blankLines };
}
