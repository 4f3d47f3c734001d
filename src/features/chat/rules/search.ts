/**
 * How `chat.search` turns a query into SQL predicates (pure; the SQL lives in ../search-query.ts).
 *
 * What counts as a hit is defined by the plain substring scan and nothing else: the query is split
 * on whitespace into terms, and a message matches when its text contains every term,
 * case-insensitively (`text ILIKE '%term%'` for each term). The indexes only narrow the candidates
 * and are chosen so that they can never lose a hit:
 *
 * - CJK: the default text-search parser keeps a run of CJK characters as one word, so
 *   `chat_messages.search` also holds every two-character window (bigram) of every CJK run. A text
 *   that contains a term contains all the bigrams of the term's CJK runs, so "all bigrams present"
 *   (a GIN tsquery) is a superset of the substring matches.
 * - Everything else: a trigram index (pg_trgm) over the text with CJK runs blanked out
 *   (`ats_latin_text`). A term's non-CJK parts are substrings of that text whenever the term is a
 *   substring of the message, so `ats_latin_text(text) ILIKE '%part%'` is a superset too.
 * - A term with neither (one CJK character, or fewer than three letters or digits in a row) has no
 *   index; when no term of a query has one, the chat is scanned. The result is still exact.
 *
 * Ranking looks at the newest matches only (a window), so a very common term is better answered by
 * reading the chat backwards until the window is full than by fetching every match the index
 * finds. Postgres cannot tell the two apart for CJK (it multiplies bigram frequencies as if they
 * were independent, and a phrase's bigrams are not), so the service estimates the match rate from
 * the column statistics with `estimateMatchFraction` and drops the index predicates when the rate is
 * high. Both plans evaluate the same substring predicates, so the hits are the same.
 *
 * The character classes here and in the SQL functions of migration 0003 must stay identical.
 */

/** Hiragana, Katakana, CJK Extension A, Unified Ideographs, Hangul, compatibility ideographs, Extensions B–H. */
export const CJK_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x3040, 0x30ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xac00, 0xd7af],
  [0xf900, 0xfaff],
  [0x20000, 0x323af],
];

const rangeClass = CJK_RANGES.map(([from, to]) => `\\u{${from.toString(16)}}-\\u{${to.toString(16)}}`).join(
  '',
);
const CJK_RUN = new RegExp(`[${rangeClass}]+`, 'gu');
const WORD_RUN = /[\p{L}\p{N}]{3,}/u;

export const MAX_TERMS = 8;
export const MAX_TERM_LENGTH = 200;

export interface SearchTerm {
  text: string;
  /** `%term%` with `\`, `%` and `_` escaped, for ILIKE. */
  pattern: string;
  /** Bigrams of the term's CJK runs of two or more characters. */
  bigrams: string[];
  /** ILIKE patterns over `ats_latin_text(text)` for the term's non-CJK parts that pg_trgm can index. */
  latinPatterns: string[];
  /** The term has no CJK character: a whole-word match (a lexeme of the `simple` parser) ranks higher. */
  latinOnly: boolean;
}

export interface SearchPlan {
  terms: SearchTerm[];
  /** All bigrams ANDed as a tsquery literal, or null when no term has a CJK run of two or more. */
  bigramQuery: string | null;
  /** At least one predicate can use an index. */
  indexed: boolean;
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/** Two-character windows of each CJK run, in order of first appearance, without repeats. */
export function cjkBigrams(text: string): string[] {
  const bigrams = new Set<string>();
  for (const match of text.matchAll(CJK_RUN)) {
    const chars = [...match[0]];
    for (let i = 0; i + 1 < chars.length; i++) bigrams.add(`${chars[i]}${chars[i + 1]}`);
  }
  return [...bigrams];
}

export function splitTerms(query: string): string[] {
  const seen = new Set<string>();
  for (const term of query.trim().split(/\s+/u)) {
    if (term !== '') seen.add(term);
  }
  return [...seen];
}

function planTerm(text: string): SearchTerm {
  const latinParts = text.split(CJK_RUN).filter((part) => WORD_RUN.test(part));
  return {
    text,
    pattern: `%${escapeLike(text)}%`,
    bigrams: cjkBigrams(text),
    latinPatterns: latinParts.map((part) => `%${escapeLike(part)}%`),
    latinOnly: !new RegExp(CJK_RUN.source, 'u').test(text),
  };
}

/** Terms must already be checked for count and length (the tool and API schemas bound both). */
export function planChatSearch(query: string): SearchPlan {
  const terms = splitTerms(query).map(planTerm);
  const bigrams = [...new Set(terms.flatMap((term) => term.bigrams))];
  return {
    terms,
    // Bigrams are CJK characters only, so they never need quoting inside the lexeme quotes.
    bigramQuery: bigrams.length > 0 ? bigrams.map((bigram) => `'${bigram}'`).join(' & ') : null,
    indexed: terms.some((term) => term.bigrams.length > 0 || term.latinPatterns.length > 0),
  };
}

/**
 * An estimate of the fraction of messages that match, from lexeme frequencies (Postgres'
 * most-common-element statistics of the search vector): a CJK term can match no more often than
 * its rarest bigram, a single Latin word about as often as the word, and all terms must match. A lexeme the
 * statistics do not list is rarer than all listed ones: it counts as 0. A term without lexemes
 * (too short to index) says nothing and counts as 1.
 */
export function estimateMatchFraction(
  plan: SearchPlan,
  frequency: (lexeme: string) => number | undefined,
): number {
  let fraction = 1;
  for (const term of plan.terms) {
    const word = term.latinOnly && WHOLE_WORD.test(term.text);
    const lexemes = term.bigrams.length > 0 ? term.bigrams : word ? [term.text.toLowerCase()] : [];
    for (const lexeme of lexemes) fraction = Math.min(fraction, frequency(lexeme) ?? 0);
  }
  return fraction;
}

const WHOLE_WORD = /^[\p{L}\p{N}]+$/u;
