/** A UTF-16 code unit of a surrogate pair with its partner missing: no UTF-8 or jsonb can hold it. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** Each lone surrogate replaced by U+FFFD, as a UTF-8 encoder would. */
const wellFormed = (text: string) => text.replace(LONE_SURROGATES, '\uFFFD');

/** Text Postgres can store (as text or inside jsonb): no lone surrogates and no NUL. */
export const storableText = (text: string) => wellFormed(text).replaceAll('\u0000', '\uFFFD');

/** `at`, or one before it when a cut at `at` would split a surrogate pair. */
export const pairSafe = (text: string, at: number) =>
  at > 0 && at < text.length && /[\uD800-\uDBFF]/.test(text[at - 1]!) && /[\uDC00-\uDFFF]/.test(text[at]!)
    ? at - 1
    : at;

/**
 * The first `max` code units of `text`, one fewer when the cut would split a surrogate pair: half
 * a pair stored as JSON is refused by Postgres, so a cut that lands inside an emoji would turn
 * well-formed input into a failed write.
 */
export function cutAt(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, pairSafe(text, max));
}

/** Length in Unicode code points, the unit people count as characters (an emoji is one, not two). */
export function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
