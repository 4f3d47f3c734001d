/**
 * Finds where a hunk's lines sit in a file, forgiving in the same order as Codex: exact, then
 * ignoring trailing whitespace, then ignoring surrounding whitespace, then also folding Unicode
 * punctuation to ASCII. The first level that matches anywhere wins, so a looser match never
 * shadows an exact one further down the file.
 */

export type MatchLevel = 'exact' | 'trim_end' | 'trim' | 'fold';

export interface SeekMatch {
  index: number;
  level: MatchLevel;
}

// Models write ASCII where files hold typographic dashes, quotes and spaces, and the reverse.
const FOLDED: ReadonlyMap<string, string> = new Map([
  ...[...'\u2010\u2011\u2012\u2013\u2014\u2015\u2212'].map((c) => [c, '-'] as const),
  ...[...'\u2018\u2019\u201A\u201B'].map((c) => [c, "'"] as const),
  ...[...'\u201C\u201D\u201E\u201F'].map((c) => [c, '"'] as const),
  ...[...'\u00A0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000'].map(
    (c) => [c, ' '] as const,
  ),
]);
const FOLDABLE = new RegExp(`[${[...FOLDED.keys()].join('')}]`, 'g');

/** Also composes to NFC, so a file saved decomposed (as macOS does) still matches. */
export function foldPunctuation(text: string): string {
  return text.normalize('NFC').replace(FOLDABLE, (c) => FOLDED.get(c)!);
}

const LEVELS: ReadonlyArray<readonly [MatchLevel, (line: string) => string]> = [
  ['exact', (line) => line],
  ['trim_end', (line) => line.trimEnd()],
  ['trim', (line) => line.trim()],
  ['fold', (line) => foldPunctuation(line.trim())],
];

/**
 * Index of the first occurrence of `pattern` in `lines` at or after `start`. With `endOfFile`
 * the pattern must end on the last line. An empty pattern matches at `start`.
 */
export function seekSequence(
  lines: readonly string[],
  pattern: readonly string[],
  start: number,
  endOfFile: boolean,
): SeekMatch | null {
  if (pattern.length === 0) return { index: start, level: 'exact' };
  const last = lines.length - pattern.length;
  const first = endOfFile ? Math.max(start, last) : start;
  if (first > last) return null;
  for (const [level, normalise] of LEVELS) {
    const wanted = pattern.map(normalise);
    const have = lines.map(normalise);
    for (let index = first; index <= last; index++) {
      if (wanted.every((line, offset) => have[index + offset] === line)) return { index, level };
    }
  }
  return null;
}
