import { createHash } from 'node:crypto';
import { cutAt } from './unicode.js';

/** JSON with object keys sorted at every level, so equal values always serialise the same way. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(
        Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      );
    }
    return v;
  });
}

/** The hash an approval is bound to: the same arguments, however their keys were ordered, hash alike. */
export function hashArguments(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex');
}

export function summarize(value: unknown, maxChars = 500): string {
  const text = canonicalJson(value);
  return text.length <= maxChars ? text : `${cutAt(text, maxChars)}… (${text.length} characters)`;
}
