import { countTokens } from '../../../core/tokens.js';
import { codePoints } from '../../../core/unicode.js';

/**
 * Which part of a file `workspace.read_file` returns. Lines are 1-based and inclusive; characters
 * are Unicode code points, 0-based, end exclusive. Lines and characters cannot be mixed.
 */
export interface ReadRange {
  startLine?: number | undefined;
  endLine?: number | undefined;
  startChar?: number | undefined;
  endChar?: number | undefined;
}

/** The most a single read may return; whichever limit is hit first cuts the content. */
export interface ReadBudget {
  maxBytes: number;
  maxTokens: number | null;
}

export interface ReadSelection {
  content: string;
  /** The lines the content covers (1-based, inclusive), 0 and 0 for an empty file. */
  startLine: number;
  endLine: number;
  /** The characters the content covers (0-based, end exclusive). */
  startChar: number;
  endChar: number;
  totalLines: number;
  totalChars: number;
  /** True when the budget cut the requested range short. */
  truncated: boolean;
  /** Where the next read continues: a line when the cut fell between lines, else a character. */
  next: { startLine: number } | { startChar: number } | null;
}

export type ReadOutcome = { ok: true; selection: ReadSelection } | { ok: false; message: string };

const fail = (message: string): ReadOutcome => ({ ok: false, message });

export function countLines(text: string): number {
  if (text === '') return 0;
  let lines = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines += 1;
  return text.endsWith('\n') ? lines : lines + 1;
}

/** UTF-16 index of the code point `offset` (the end of the text when `offset` is past it). */
function indexOfCodePoint(text: string, offset: number): number {
  let index = 0;
  let seen = 0;
  while (seen < offset && index < text.length) {
    index += (text.codePointAt(index) ?? 0) > 0xffff ? 2 : 1;
    seen += 1;
  }
  return index;
}

/** UTF-16 index where 1-based `line` starts (the end of the text past the last line). */
function indexOfLine(text: string, line: number): number {
  let index = 0;
  for (let current = 1; current < line; current++) {
    const newline = text.indexOf('\n', index);
    if (newline === -1) return text.length;
    index = newline + 1;
  }
  return index;
}

const lineAt = (text: string, index: number): number => countLines(text.slice(0, index + 1));

function resolveRange(text: string, range: ReadRange): { from: number; to: number } | string {
  const byLines = range.startLine !== undefined || range.endLine !== undefined;
  const byChars = range.startChar !== undefined || range.endChar !== undefined;
  if (byLines && byChars) return 'give either startLine/endLine or startChar/endChar, not both';
  if (text === '') return { from: 0, to: 0 };
  if (byChars) {
    const totalChars = codePoints(text);
    const start = range.startChar ?? 0;
    const end = range.endChar ?? totalChars;
    if (start >= totalChars) {
      return `startChar ${start} is past the end of the file, which has ${totalChars} characters`;
    }
    if (end <= start) return `endChar (${end}) must be greater than startChar (${start})`;
    return { from: indexOfCodePoint(text, start), to: indexOfCodePoint(text, end) };
  }
  const totalLines = countLines(text);
  const start = range.startLine ?? 1;
  const end = range.endLine ?? Math.max(totalLines, start);
  if (end < start) return `endLine (${end}) must not be less than startLine (${start})`;
  if (start > totalLines) {
    return `startLine ${start} is past the end of the file, which has ${totalLines} lines`;
  }
  return { from: indexOfLine(text, start), to: indexOfLine(text, end + 1) };
}

/** The longest prefix (UTF-16 length, never splitting a code point) within the budget. */
function fitPrefix(text: string, budget: ReadBudget): number {
  let bytes = 0;
  let length = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > budget.maxBytes) break;
    bytes += size;
    length += char.length;
  }
  if (budget.maxTokens === null || countTokens(text.slice(0, length)) <= budget.maxTokens) return length;
  // Token counts grow with the prefix, so a binary search finds the longest prefix that fits.
  let fits = 0;
  let tooLong = length;
  while (tooLong - fits > 1) {
    let middle = Math.floor((fits + tooLong) / 2);
    if (/[\uDC00-\uDFFF]/.test(text[middle] ?? '')) middle -= 1;
    if (middle <= fits) break;
    if (countTokens(text.slice(0, middle)) <= budget.maxTokens) fits = middle;
    else tooLong = middle;
  }
  return fits;
}

export function selectRange(text: string, range: ReadRange, budget: ReadBudget): ReadOutcome {
  const resolved = resolveRange(text, range);
  if (typeof resolved === 'string') return fail(resolved);
  const { from, to } = resolved;
  const requested = text.slice(from, to);
  let length = fitPrefix(requested, budget);
  const truncated = length < requested.length;
  let next: ReadSelection['next'] = null;
  if (truncated) {
    const lastNewline = length === 0 ? -1 : requested.lastIndexOf('\n', length - 1);
    const byChars = range.startChar !== undefined || range.endChar !== undefined;
    if (!byChars && lastNewline !== -1) {
      length = lastNewline + 1;
      next = { startLine: lineAt(text, from + length - 1) + 1 };
    } else {
      next = { startChar: codePoints(text.slice(0, from + length)) };
    }
  }
  const content = requested.slice(0, length);
  const empty = content === '';
  const startChar = codePoints(text.slice(0, from));
  return {
    ok: true,
    selection: {
      content,
      startLine: empty ? 0 : lineAt(text, from),
      endLine: empty ? 0 : lineAt(text, from + length - 1),
      startChar,
      endChar: startChar + codePoints(content),
      totalLines: countLines(text),
      totalChars: codePoints(text),
      truncated,
      next,
    },
  };
}
