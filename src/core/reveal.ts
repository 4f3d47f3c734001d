/**
 * What a person is shown of text a model or tool wrote (arguments, approval messages, reasons):
 * nothing may read as one thing and run as another. Invisible and bidi characters are made
 * visible, and words that mix look-alike scripts (a Cyrillic `е` in `dеlete`) are flagged.
 *
 * Pure and without imports: the console imports this file too (console cards, the edit form, the
 * signed-link page), and the server uses it for notification bodies, so all show the same.
 */

/**
 * Characters that show as nothing, or as a plain space, or reorder what follows: controls (but a
 * newline, carriage return or tab, which text shows as such), format characters (Cf: bidi controls, zero-width
 * characters, soft hyphen, BOM, tags), variation selectors, invisible fillers, line and paragraph
 * separators, and every space but U+0020.
 */
const HIDDEN =
  /(?![\t\n\r])\p{Cc}|[\p{Cf}\p{Variation_Selector}\u180E\u115F\u1160\u3164\uFFA0\u2028\u2029\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/u;
const HIDDEN_ALL = new RegExp(HIDDEN.source, 'gu');

/** Bidi controls reorder the text after them: the most dangerous of the hidden characters. */
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

const NAMES: Record<string, string> = {
  '\u00A0': 'NO-BREAK SPACE',
  '\u00AD': 'SOFT HYPHEN',
  '\u061C': 'ARABIC LETTER MARK',
  '\u200B': 'ZERO WIDTH SPACE',
  '\u200C': 'ZERO WIDTH NON-JOINER',
  '\u200D': 'ZERO WIDTH JOINER',
  '\u200E': 'LEFT-TO-RIGHT MARK',
  '\u200F': 'RIGHT-TO-LEFT MARK',
  '\u202A': 'LEFT-TO-RIGHT EMBEDDING',
  '\u202B': 'RIGHT-TO-LEFT EMBEDDING',
  '\u202C': 'POP DIRECTIONAL FORMATTING',
  '\u202D': 'LEFT-TO-RIGHT OVERRIDE',
  '\u202E': 'RIGHT-TO-LEFT OVERRIDE',
  '\u2060': 'WORD JOINER',
  '\u2066': 'LEFT-TO-RIGHT ISOLATE',
  '\u2067': 'RIGHT-TO-LEFT ISOLATE',
  '\u2068': 'FIRST STRONG ISOLATE',
  '\u2069': 'POP DIRECTIONAL ISOLATE',
  '\uFEFF': 'ZERO WIDTH NO-BREAK SPACE (BOM)',
};

/** `U+202E` */
export const codePointOf = (char: string): string =>
  `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** `U+202E RIGHT-TO-LEFT OVERRIDE`, or the code point alone for a character without a name here. */
export const describeHidden = (char: string): string => {
  const name = NAMES[char];
  return name ? `${codePointOf(char)} ${name}` : codePointOf(char);
};

export interface RevealPart {
  /** The text as written: a run of visible characters, or one hidden character. */
  text: string;
  /** For a hidden character: `U+202E`, what it is shown as; absent for visible text. */
  hidden?: string;
  /** The hidden character's description (`U+202E RIGHT-TO-LEFT OVERRIDE`), for a tooltip. */
  title?: string;
  /** True when the hidden character reorders the text after it. */
  bidi?: boolean;
}

/** `text` cut into visible runs and the hidden characters between them, each to be shown marked. */
export function revealParts(text: string): RevealPart[] {
  const parts: RevealPart[] = [];
  let last = 0;
  for (const match of text.matchAll(HIDDEN_ALL)) {
    const at = match.index;
    if (at > last) parts.push({ text: text.slice(last, at) });
    const char = match[0];
    parts.push({ text: char, hidden: codePointOf(char), title: describeHidden(char), bidi: BIDI.test(char) });
    last = at + char.length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}

/** `text` with each hidden character replaced by what `write` makes of it. */
export const replaceHidden = (text: string, write: (char: string) => string): string =>
  text.replace(HIDDEN_ALL, write);

/** `text` with each hidden character written as `⟦U+202E⟧`: for plain-text places (notifications). */
export const revealText = (text: string): string => replaceHidden(text, (char) => `⟦${codePointOf(char)}⟧`);

export const hasHidden = (text: string): boolean => HIDDEN.test(text);

/** Scripts whose letters pass for one another (Latin `a`, Cyrillic `а`, Greek `α`). */
const LOOKALIKE_SCRIPTS: ReadonlyArray<[string, RegExp]> = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Cherokee', /\p{Script=Cherokee}/u],
  ['Coptic', /\p{Script=Coptic}/u],
];

/** Cyrillic and Greek letters that look like Latin ones: a word of only these passes for Latin. */
const PASSES_FOR_LATIN = /^[аеорсухіјѕԁԛԝһӏАВЕКМНОРСТХІЈЅΑΒΕΖΗΙΚΜΝΟΡΤΥΧοικνρτυχ]+$/u;

export interface Lookalike {
  /** The word as written. */
  word: string;
  /** The scripts its letters come from, in order of first use (`Latin`, `Cyrillic`). */
  scripts: string[];
}

/** A word: letters, marks and digits, plus the hidden characters that may sit inside one. */
const WORD = /[\p{L}\p{M}\p{N}\p{Cf}]+/gu;

/**
 * Words that read as another word: letters of two look-alike scripts mixed in one word, or, in text
 * that also has Latin words, a word made only of Cyrillic or Greek letters that pass for Latin
 * (`рау`), or compatibility forms (fullwidth `ｄｅｌｅｔｅ`) that NFKC folds to other letters.
 */
export function lookalikes(text: string): Lookalike[] {
  const words = text.match(WORD) ?? [];
  const hasLatin = words.some((w) => /^\p{Script=Latin}+$/u.test(w));
  const found: Lookalike[] = [];
  for (const word of new Set(words)) {
    const scripts: string[] = [];
    for (const char of word) {
      const script = LOOKALIKE_SCRIPTS.find(([, pattern]) => pattern.test(char))?.[0];
      if (script && !scripts.includes(script)) scripts.push(script);
    }
    const folded = [...word].some((c) => /\p{L}/u.test(c) && c.normalize('NFKC') !== c.normalize('NFC'));
    if (scripts.length > 1 || folded || (hasLatin && PASSES_FOR_LATIN.test(word)))
      found.push({ word, scripts: folded ? [...scripts, 'compatibility forms'] : scripts });
  }
  return found;
}

/** One line per look-alike word and per kind of hidden character: what a person is warned of. */
export function revealWarnings(text: string): string[] {
  const warnings = lookalikes(text).map(
    ({ word, scripts }) => `"${revealText(word)}" mixes ${scripts.join(' and ')} letters that look alike`,
  );
  const hidden = new Set(text.match(HIDDEN_ALL) ?? []);
  for (const char of hidden)
    warnings.push(
      `holds ${describeHidden(char)}${BIDI.test(char) ? ', which reorders the text after it' : ', which is invisible'}`,
    );
  return warnings;
}
