import { createHash } from 'node:crypto';
import { tokenizer } from './tokenizer-build.js';
import { pairSafe } from './unicode.js';

export { warmTokenizer } from './tokenizer-build.js';

/**
 * Text is counted as text: a tool result or a chat message that contains `<|endoftext|>` is not a
 * control token (js-tiktoken would otherwise refuse it and fail the whole frame).
 */
const plain = (text: string) => tokenizer().encode(text, [], []);

/** No run without whitespace is encoded longer than this. */
const MAX_RUN = 256;
const LONG_RUN = new RegExp(`\\S{${MAX_RUN + 1},}`, 'g');

/**
 * BPE merges within a run of text that has no whitespace (base64, hex, minified code) cost time
 * quadratic in the run's length: one 20,000-character run takes most of a minute and blocks the
 * event loop. Such runs are encoded in bounded slices (never splitting a surrogate pair), which
 * keeps the cost linear and changes a count by at most a token per slice.
 */
function encode(text: string): number[] {
  if (text.length <= MAX_RUN) return plain(text);
  const parts: number[][] = [];
  let from = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    const start = match.index;
    if (start > from) parts.push(plain(text.slice(from, start)));
    const end = start + match[0].length;
    for (let at = start; at < end; ) {
      const cut = pairSafe(text, Math.min(at + MAX_RUN, end));
      parts.push(plain(text.slice(at, cut)));
      at = cut;
    }
    from = end;
  }
  if (from < text.length) parts.push(plain(text.slice(from)));
  return parts.length === 1 ? parts[0]! : parts.flat();
}

/**
 * Counts of long texts by content hash, newest use last. Tool results and history are immutable
 * and every model request of a run counts them again, so after the first request only new text is
 * tokenized. Keyed by a hash, not the text: a key string could be a slice that keeps a much larger
 * string alive, and the bound is then on entries, about 100 bytes each.
 */
const counted = new Map<string, number>();
const CACHED_MIN_CHARS = 512;
const CACHE_ENTRIES = 50_000;

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  if (text.length < CACHED_MIN_CHARS) return encode(text).length;
  const key = createHash('sha256').update(text).digest('base64');
  const known = counted.get(key);
  if (known !== undefined) {
    counted.delete(key);
    counted.set(key, known);
    return known;
  }
  const tokens = encode(text).length;
  counted.set(key, tokens);
  if (counted.size > CACHE_ENTRIES) counted.delete(counted.keys().next().value!);
  return tokens;
}

/** Characters first tried per token wanted: generous for English (about 4), ample for CJK (1-2). */
const CHARS_PER_TOKEN_GUESS = 8;

/**
 * The longest prefix of `text` that fits in `maxTokens` tokens. Only a window a little longer than
 * the answer is encoded (widened until it holds more than `maxTokens` tokens), so cutting a small
 * head off a long text costs the head, not the text.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  for (let size = maxTokens * CHARS_PER_TOKEN_GUESS + 64; ; size *= 2) {
    const whole = size >= text.length;
    const tokens = encode(whole ? text : text.slice(0, pairSafe(text, size)));
    if (tokens.length > maxTokens) return tokenizer().decode(tokens.slice(0, maxTokens));
    if (whole) return text;
  }
}

/** The longest suffix of `text` that fits in `maxTokens` tokens, encoding only a window as above. */
export function lastTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  for (let size = maxTokens * CHARS_PER_TOKEN_GUESS + 64; ; size *= 2) {
    const whole = size >= text.length;
    const tokens = encode(whole ? text : text.slice(pairSafe(text, text.length - size)));
    if (tokens.length > maxTokens) return tokenizer().decode(tokens.slice(tokens.length - maxTokens));
    if (whole) return text;
  }
}
