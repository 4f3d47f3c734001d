import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';

let encoder: Tiktoken | null = null;

/** o200k_base (GPT-4o family) is loaded once, on first use: building it takes about a second. */
function tokenizer(): Tiktoken {
  encoder ??= new Tiktoken(o200k);
  return encoder;
}

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
  if (text.length <= MAX_RUN) return tokenizer().encode(text);
  const parts: number[][] = [];
  let from = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    const start = match.index;
    if (start > from) parts.push(tokenizer().encode(text.slice(from, start)));
    const end = start + match[0].length;
    for (let at = start; at < end; ) {
      let cut = Math.min(at + MAX_RUN, end);
      if (cut < end && /[\uD800-\uDBFF]/.test(text[cut - 1]!)) cut -= 1;
      parts.push(tokenizer().encode(text.slice(at, cut)));
      at = cut;
    }
    from = end;
  }
  if (from < text.length) parts.push(tokenizer().encode(text.slice(from)));
  return parts.length === 1 ? parts[0]! : parts.flat();
}

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : encode(text).length;
}

/** The longest prefix of `text` that fits in `maxTokens` tokens. */
export function truncateToTokens(text: string, maxTokens: number): string {
  const tokens = encode(text);
  if (tokens.length <= maxTokens) return text;
  return tokenizer().decode(tokens.slice(0, maxTokens));
}

/** The longest suffix of `text` that fits in `maxTokens` tokens. */
export function lastTokens(text: string, maxTokens: number): string {
  const tokens = encode(text);
  if (tokens.length <= maxTokens) return text;
  return maxTokens <= 0 ? '' : tokenizer().decode(tokens.slice(tokens.length - maxTokens));
}
