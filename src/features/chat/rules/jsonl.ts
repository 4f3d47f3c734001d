/**
 * SillyTavern chat files (JSONL): line 1 is a header, every later line is one message.
 *
 * Nothing is dropped. Each physical line is kept as a `ChatLine` with its original text and line
 * ending, and every message keeps its parsed object (`raw`) with unknown fields and key order, so
 * `serializeChatJsonl` can write the file back: unchanged lines byte for byte, edited lines as the
 * compact `JSON.stringify` that SillyTavern itself writes.
 *
 * Representation decisions:
 * - Message `index` is the position in SillyTavern's in-memory `chat` array (ST drops blank lines
 *   when it loads a chat), so refs line up with ST's message ids.
 * - A line after the header that is an object without `mes` (the hand-inserted `{"system": "…"}`
 *   line of the Seraphina export) is still a message, because ST would load it into `chat` too. It
 *   gets role `system`, `nonStandard: true`, and its text from a string `system` field when there is
 *   one. Consumers that only want real turns filter on `nonStandard`.
 * - Role: `is_user` → user; otherwise `is_system` → system (ST narrator and hidden messages);
 *   otherwise assistant. The raw flags stay available as `isUser` / `isSystem`.
 * - Header shapes: `modern` (`user_name, character_name, create_date, chat_metadata`),
 *   `placeholder` (newer ST/TauriTavern: `chat_metadata` with `user_name`/`character_name` set to the
 *   literal `"unused"`, reported here as null) and `legacy` (TavernAI: no `chat_metadata`, epoch-ms
 *   `create_date`).
 * - Blank (whitespace-only) lines are kept as `blank` lines for byte-exact output; a UTF-8 BOM before
 *   the header is remembered on the header line.
 */
import { DomainError } from '../../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../../core/json.js';
import { parseStDate } from './st-date.js';

export const chatRoles = ['user', 'assistant', 'system'] as const;
export type ChatRole = (typeof chatRoles)[number];
/** The terminator that followed a line in the source; '' only for a last line without a newline. */
export type LineEnding = '\n' | '\r\n' | '';
export type ChatHeaderShape = 'modern' | 'placeholder' | 'legacy';

export type ChatJsonlErrorReason = 'EMPTY_FILE' | 'INVALID_JSON' | 'HEADER_NOT_OBJECT' | 'MESSAGE_NOT_OBJECT';

export class ChatJsonlError extends DomainError {
  readonly reason: ChatJsonlErrorReason;
  readonly line: number;

  constructor(reason: ChatJsonlErrorReason, line: number, message: string) {
    super('BAD_USER_INPUT', `chat JSONL line ${line}: ${message}`, { reason, line });
    this.name = 'ChatJsonlError';
    this.reason = reason;
    this.line = line;
  }
}

export interface ChatHeader {
  shape: ChatHeaderShape;
  userName: string | null;
  characterName: string | null;
  /** `create_date` as stored (ST stamp string, or epoch ms in legacy files); null when absent. */
  createDate: string | number | null;
  createDateIso: string | null;
  chatMetadata: JsonObject | null;
  raw: JsonObject;
}

export interface ChatMessage {
  /** Position in ST's `chat` array (0 = first line after the header, blank lines not counted). */
  index: number;
  lineNumber: number;
  role: ChatRole;
  name: string;
  text: string;
  isUser: boolean;
  isSystem: boolean;
  /** The line is an object without `mes`, such as `{"system": "…"}`. */
  nonStandard: boolean;
  /** `send_date` exactly as stored; null when absent or not a string/number. */
  sendDate: string | number | null;
  sendDateIso: string | null;
  raw: JsonObject;
}

interface LineBase {
  lineNumber: number;
  /** The line as read, without its terminator (and without a leading BOM). */
  text: string;
  eol: LineEnding;
}

export type ChatLine =
  | (LineBase & { kind: 'header'; bom: boolean; header: ChatHeader })
  | (LineBase & { kind: 'message'; message: ChatMessage })
  | (LineBase & { kind: 'blank' });

export interface ParsedChat {
  header: ChatHeader;
  messages: ChatMessage[];
  /** Every physical line in order; this, not `messages`, is what `serializeChatJsonl` writes. */
  lines: ChatLine[];
}

export interface ChatLinePosition {
  lineNumber: number;
  /** Index the next message gets, or null while the header has not been read. */
  nextMessageIndex: number | null;
  eol?: LineEnding;
}

const BOM = '\uFEFF';
const PLACEHOLDER_NAME = 'unused';

function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function dateValue(value: unknown): string | number | null {
  return typeof value === 'string' || typeof value === 'number' ? value : null;
}

function parseJsonLine(text: string, lineNumber: number): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ChatJsonlError('INVALID_JSON', lineNumber, `invalid JSON (${detail})`);
  }
}

function toHeader(raw: JsonObject): ChatHeader {
  const metadata = raw.chat_metadata;
  const chatMetadata = isJsonObject(metadata) ? metadata : null;
  const placeholder =
    chatMetadata !== null && raw.user_name === PLACEHOLDER_NAME && raw.character_name === PLACEHOLDER_NAME;
  const shape: ChatHeaderShape = !('chat_metadata' in raw)
    ? 'legacy'
    : placeholder
      ? 'placeholder'
      : 'modern';
  const name = (value: unknown) => (!placeholder && typeof value === 'string' ? value : null);
  const createDate = dateValue(raw.create_date);
  return {
    shape,
    userName: name(raw.user_name),
    characterName: name(raw.character_name),
    createDate,
    createDateIso: parseStDate(createDate),
    chatMetadata,
    raw,
  };
}

function toMessage(raw: JsonObject, index: number, lineNumber: number): ChatMessage {
  const nonStandard = !('mes' in raw);
  const isUser = raw.is_user === true;
  const isSystem = raw.is_system === true;
  const role: ChatRole = nonStandard || (!isUser && isSystem) ? 'system' : isUser ? 'user' : 'assistant';
  const textSource = nonStandard ? raw.system : raw.mes;
  const sendDate = dateValue(raw.send_date);
  return {
    index,
    lineNumber,
    role,
    name: typeof raw.name === 'string' ? raw.name : '',
    text: typeof textSource === 'string' ? textSource : '',
    isUser,
    isSystem,
    nonStandard,
    sendDate,
    sendDateIso: parseStDate(sendDate),
    raw,
  };
}

/**
 * Parses one physical line. Pure, so a large file can be imported line by line (for example from
 * `readline`) while the caller keeps the position and reports progress.
 */
export function parseChatLine(text: string, position: ChatLinePosition): ChatLine {
  const { lineNumber, nextMessageIndex } = position;
  let eol: LineEnding = position.eol ?? '\n';
  let body = text;
  if (eol === '\n' && body.endsWith('\r')) {
    body = body.slice(0, -1);
    eol = '\r\n';
  }

  if (nextMessageIndex === null) {
    // trim() treats U+FEFF as whitespace, so a BOM-only line is blank and keeps its BOM in `text`.
    if (body.trim() === '') return { kind: 'blank', lineNumber, text: body, eol };
    const bom = body.startsWith(BOM);
    if (bom) body = body.slice(BOM.length);
    const value = parseJsonLine(body, lineNumber);
    if (!isJsonObject(value)) {
      throw new ChatJsonlError(
        'HEADER_NOT_OBJECT',
        lineNumber,
        `the header must be a JSON object, got ${describeJsonType(value)}`,
      );
    }
    return { kind: 'header', lineNumber, text: body, eol, bom, header: toHeader(value) };
  }

  if (body.trim() === '') return { kind: 'blank', lineNumber, text: body, eol };
  const value = parseJsonLine(body, lineNumber);
  if (!isJsonObject(value)) {
    throw new ChatJsonlError(
      'MESSAGE_NOT_OBJECT',
      lineNumber,
      `a message must be a JSON object, got ${describeJsonType(value)}`,
    );
  }
  return {
    kind: 'message',
    lineNumber,
    text: body,
    eol,
    message: toMessage(value, nextMessageIndex, lineNumber),
  };
}

/**
 * Incremental parser over text chunks (split anywhere, even inside a line). `push` returns the lines
 * completed by the chunk, `end` returns the last unterminated line and checks that a header was seen.
 */
export class ChatJsonlReader {
  private pending = '';
  private lineNumber = 0;
  private nextMessageIndex: number | null = null;

  get linesRead(): number {
    return this.lineNumber;
  }

  get messagesRead(): number {
    return this.nextMessageIndex ?? 0;
  }

  push(chunk: string): ChatLine[] {
    const text = this.pending + chunk;
    const lines: ChatLine[] = [];
    let start = 0;
    for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', start)) {
      lines.push(this.take(text.slice(start, newline), '\n'));
      start = newline + 1;
    }
    this.pending = text.slice(start);
    return lines;
  }

  end(): ChatLine[] {
    const lines = this.pending === '' ? [] : [this.take(this.pending, '')];
    this.pending = '';
    if (this.nextMessageIndex === null) {
      throw new ChatJsonlError('EMPTY_FILE', Math.max(this.lineNumber, 1), 'the file has no header line');
    }
    return lines;
  }

  private take(text: string, eol: LineEnding): ChatLine {
    this.lineNumber += 1;
    const line = parseChatLine(text, {
      lineNumber: this.lineNumber,
      nextMessageIndex: this.nextMessageIndex,
      eol,
    });
    if (line.kind === 'header') this.nextMessageIndex = 0;
    if (line.kind === 'message') this.nextMessageIndex = line.message.index + 1;
    return line;
  }
}

export function parseChatJsonl(text: string): ParsedChat {
  const reader = new ChatJsonlReader();
  const lines = [...reader.push(text), ...reader.end()];
  let header: ChatHeader | undefined;
  const messages: ChatMessage[] = [];
  for (const line of lines) {
    if (line.kind === 'header') header = line.header;
    else if (line.kind === 'message') messages.push(line.message);
  }
  // end() has already thrown when no header was read.
  return { header: header!, messages, lines };
}

/**
 * Writes one JSON line. The original text is kept whenever it still parses to the same value (same
 * keys in the same order), so number spellings, escapes and spacing survive; otherwise the value is
 * written compactly, as SillyTavern does.
 */
export function formatChatLine(value: JsonObject, originalText?: string): string {
  const compact = JSON.stringify(value);
  if (originalText === undefined || originalText === compact) return compact;
  try {
    return JSON.stringify(JSON.parse(originalText)) === compact ? originalText : compact;
  } catch {
    return compact;
  }
}

export function serializeChatLine(line: ChatLine): string {
  switch (line.kind) {
    case 'header':
      return (line.bom ? BOM : '') + formatChatLine(line.header.raw, line.text) + line.eol;
    case 'message':
      return formatChatLine(line.message.raw, line.text) + line.eol;
    case 'blank':
      return line.text + line.eol;
  }
}

export function serializeChatJsonl(chat: ParsedChat): string {
  return chat.lines.map(serializeChatLine).join('');
}
