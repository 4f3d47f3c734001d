import { pairSafe } from '../../../core/unicode.js';

/** Characters one resource.read returns unless it asks for fewer. */
export const DEFAULT_PAGE_CHARS = 8_000;
/** The most one call returns: a page stays a small share of a context window. */
export const MAX_PAGE_CHARS = 20_000;

export interface TextPage {
  text: string;
  /** Offsets in UTF-16 code units (JavaScript string indices), end exclusive. */
  start: number;
  end: number;
  totalChars: number;
  /** Where the next page starts; null at the end. */
  nextOffset: number | null;
}

/**
 * `length` characters of `text` from `offset`, never splitting a surrogate pair. Null when the
 * offset lies past the end (an offset equal to the length of a non-empty text names nothing).
 */
export function pageOf(text: string, offset: number, length: number): TextPage | null {
  if (offset > text.length || (offset === text.length && text.length > 0)) return null;
  const start = pairSafe(text, offset);
  let end = pairSafe(text, Math.min(text.length, start + length));
  // A page of one character that is half of a pair still moves on: take the whole pair.
  if (end === start && start < text.length) end = Math.min(text.length, start + 2);
  return {
    text: text.slice(start, end),
    start,
    end,
    totalChars: text.length,
    nextOffset: end < text.length ? end : null,
  };
}
