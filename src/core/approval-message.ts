import { canonicalJson } from './canonical-json.js';

export const MAX_TEMPLATE_CHARS = 500;
const MAX_VALUE_CHARS = 200;
const MAX_MESSAGE_CHARS = 1000;

/** `{{name}}` or `{{a.b.c}}`, with optional spaces inside the braces. */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g;

function lookup(args: unknown, path: string): unknown {
  let value: unknown = args;
  for (const key of path.split('.')) {
    // Own properties only: a template must not reach `__proto__` or `constructor`.
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * The legacy ToolManager's "format message", made safe: an extension's template is plain text with
 * `{{argument}}` placeholders, filled from the call's arguments. No expressions, no code; each value
 * and the whole message are bounded. A missing argument renders as nothing.
 */
export function renderApprovalMessage(template: string, args: Record<string, unknown>): string {
  const text = template.replace(PLACEHOLDER, (_match, path: string) => {
    const value = lookup(args, path);
    if (value === undefined || value === null) return '';
    return clip(typeof value === 'string' ? value : canonicalJson(value), MAX_VALUE_CHARS);
  });
  return clip(text, MAX_MESSAGE_CHARS);
}
