import { countTokens, lastTokens, truncateToTokens } from '../../core/tokens.js';

export const truncatedMarker = (tokens: number) => `[… truncated ${tokens} tokens]`;
const omittedMarker = (tokens: number) => `[… ${tokens} tokens omitted …]`;

/**
 * A token cut can split a multi-byte character; the decoder turns the halves into U+FFFD. Trimmed
 * by index: a regex anchored at the end retries from every position, quadratic on a long run.
 */
function clean(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === '\uFFFD') start++;
  while (end > start && text[end - 1] === '\uFFFD') end--;
  return text.slice(start, end);
}

/**
 * Finds the largest `keep` for which `build(keep)` fits: marker and joins add a few tokens that
 * depend on the text, so the first guess is corrected by the measured excess until it fits.
 */
function largestFitting(budget: number, build: (keep: number) => string): string {
  let keep = budget;
  for (;;) {
    const text = build(keep);
    const excess = countTokens(text) - budget;
    if (excess <= 0 || keep <= 0) return excess <= 0 ? text : '';
    keep = Math.max(0, keep - excess);
  }
}

export interface Fitted {
  text: string;
  tokens: number;
}

/** The beginning of the text, then a marker saying how many tokens were cut. */
export function keepHead(text: string, budget: number): Fitted {
  const total = countTokens(text);
  if (total <= budget) return { text, tokens: total };
  const fitted = largestFitting(budget, (keep) => {
    const head = clean(truncateToTokens(text, keep));
    return `${head}\n${truncatedMarker(total - countTokens(head))}`;
  });
  return { text: fitted, tokens: countTokens(fitted) };
}

/** The end of the text (the newest part of a history), after a marker. */
export function keepTail(text: string, budget: number): Fitted {
  const total = countTokens(text);
  if (total <= budget) return { text, tokens: total };
  const fitted = largestFitting(budget, (keep) => {
    const tail = clean(lastTokens(text, keep));
    return `${truncatedMarker(total - countTokens(tail))}\n${tail}`;
  });
  return { text: fitted, tokens: countTokens(fitted) };
}

/** A deterministic summary of any text: its head and its tail, with the middle marked as omitted. */
export function headAndTail(text: string, budget: number): Fitted {
  const total = countTokens(text);
  if (total <= budget) return { text, tokens: total };
  const fitted = largestFitting(budget, (keep) => {
    const half = Math.floor(keep / 2);
    const head = clean(truncateToTokens(text, half));
    const tail = clean(lastTokens(text, half));
    const omitted = Math.max(0, total - countTokens(head) - countTokens(tail));
    return `${head}\n${omittedMarker(omitted)}\n${tail}`;
  });
  return { text: fitted, tokens: countTokens(fitted) };
}
