/**
 * Paging backwards through a chat within a character budget (chat.read_history_tail and
 * chat.read_history_before). Pure: the service measures messages in SQL and hands the lengths here.
 *
 * A position is where a page ends: everything before message `index`, plus the first `end`
 * characters of message `index` when `end` is set. Pages are filled newest first with whole
 * messages while they fit. A message longer than the whole budget is the only thing that is ever
 * cut: the page shows its last `maxChars` characters and the next position covers the rest of it,
 * so reading on shows the earlier part of that message next, never silently skipping anything.
 *
 * Characters are Unicode code points (Postgres `char_length`/`substr` units).
 */
import { RecoverableToolError } from '../../../core/tool-errors.js';

export interface HistoryPosition {
  index: number;
  end: number | null;
}

export interface PageCandidate {
  index: number;
  /** Readable characters: the whole message, or `end` for the message a position cuts. */
  chars: number;
}

export interface PageSlice {
  index: number;
  start: number;
  end: number;
}

export interface PagePlan {
  /** Oldest first. */
  slices: PageSlice[];
  /** Where the next (older) page ends; null when nothing older is left. */
  next: HistoryPosition | null;
}

/** `candidates` newest first: the cut message of the position (if any), then older messages. */
export function planHistoryPage(
  candidates: readonly PageCandidate[],
  maxChars: number,
  limit: number,
): PagePlan {
  const taken: PageSlice[] = [];
  let remaining = maxChars;
  for (const candidate of candidates) {
    if (taken.length >= limit) break;
    if (candidate.chars <= remaining) {
      taken.push({ index: candidate.index, start: 0, end: candidate.chars });
      remaining -= candidate.chars;
      continue;
    }
    if (taken.length === 0)
      taken.push({ index: candidate.index, start: candidate.chars - remaining, end: candidate.chars });
    break;
  }
  const oldest = taken.at(-1);
  if (!oldest) return { slices: [], next: null };
  const next: HistoryPosition = { index: oldest.index, end: oldest.start > 0 ? oldest.start : null };
  const more = next.end !== null || next.index > 0;
  return { slices: taken.reverse(), next: more ? next : null };
}

interface CursorBody {
  v: 1;
  chat: string;
  i: number;
  e?: number;
}

export function encodeHistoryCursor(chatId: string, position: HistoryPosition): string {
  const body: CursorBody = { v: 1, chat: chatId, i: position.index };
  if (position.end !== null) body.e = position.end;
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** A cursor names its chat, so that one run cannot page through another run's chat by accident. */
export function decodeHistoryCursor(cursor: string, chatId: string): HistoryPosition {
  let body: Partial<CursorBody>;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorBody>;
  } catch {
    body = {};
  }
  const valid =
    body.v === 1 &&
    typeof body.chat === 'string' &&
    Number.isSafeInteger(body.i) &&
    (body.i ?? -1) >= 0 &&
    (body.e === undefined || (Number.isSafeInteger(body.e) && body.e > 0));
  if (!valid) {
    throw new RecoverableToolError(
      'invalid_cursor',
      'That cursor is not one this tool returned. Use the nextCursor of a previous chat.read_history_tail or chat.read_history_before result, or call chat.read_history_tail to start again.',
    );
  }
  if (body.chat !== chatId) {
    throw new RecoverableToolError(
      'cursor_from_other_chat',
      "That cursor belongs to another chat than this run's. Call chat.read_history_tail to start paging this chat.",
    );
  }
  return { index: body.i!, end: body.e ?? null };
}
