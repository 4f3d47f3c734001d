/**
 * The console's side of look-alike text: the rules are the server's own (src/core/reveal.ts, pure,
 * imported here so console cards, the edit form, the signed-link page and notifications agree).
 */
import { replaceHidden, revealWarnings } from '../../../src/core/reveal.js';

export {
  describeHidden,
  hasHidden,
  lookalikes,
  type RevealPart,
  revealParts,
} from '../../../src/core/reveal.js';

/** Every string in a JSON value, keys too, with the JSON Pointer-like place it sits at. */
function strings(value: unknown, at: string, out: Array<[string, string]>): void {
  if (typeof value === 'string') out.push([at || '/', value]);
  else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) strings(item, `${at}/${i}`, out);
  } else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) {
      out.push([`${at}/${key} (its name)`, key]);
      strings(item, `${at}/${key}`, out);
    }
}

/**
 * What the approver must be warned of before deciding: each place in the arguments (and the
 * approval message, written from them) that holds an invisible or bidi character or a word mixing
 * look-alike scripts.
 */
export function argumentWarnings(args: unknown, message?: string | null): string[] {
  const found: Array<[string, string]> = [];
  strings(args, '', found);
  if (message) found.push(['the approval message', message]);
  return found.flatMap(([where, text]) => revealWarnings(text).map((warning) => `${where}: ${warning}`));
}

/**
 * JSON text with every hidden character written as a `\u` escape: JSON.stringify leaves them
 * inside strings as they are, invisible in a textarea; escaped, they show and parse back the same.
 */
export function jsonWithHiddenEscaped(text: string): string {
  return replaceHidden(text, (char) =>
    [...char]
      .flatMap((c) => {
        const code = c.codePointAt(0)!;
        if (code <= 0xffff) return [code];
        const v = code - 0x10000;
        return [0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff)];
      })
      .map((unit) => `\\u${unit.toString(16).toUpperCase().padStart(4, '0')}`)
      .join(''),
  );
}
