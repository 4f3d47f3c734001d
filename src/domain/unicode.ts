/** A UTF-16 code unit of a surrogate pair with its partner missing: no UTF-8 or jsonb can hold it. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** Each lone surrogate replaced by U+FFFD, as a UTF-8 encoder would. */
export const wellFormed = (text: string) => text.replace(LONE_SURROGATES, '\uFFFD');

/**
 * The first `max` code units of `text`, one fewer when the cut would split a surrogate pair: half
 * a pair stored as JSON is refused by Postgres, so a cut that lands inside an emoji would turn
 * well-formed input into a failed write.
 */
export function cutAt(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = max > 0 && /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return text.slice(0, end);
}
