import { customType } from 'drizzle-orm/pg-core';
import { storableText } from '../core/unicode.js';

function storableValue(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableValue);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableValue(k), storableValue(v)]));
  return value;
}

/**
 * JSON as Postgres will store it. jsonb refuses a lone surrogate and NUL (`\u0000`), which JSON
 * itself allows: a model's arguments, an MCP server's result or an extension's answer carrying one
 * would fail the write and, with it, the state change it belongs to. They become U+FFFD, as a
 * UTF-8 encoder would make them; everything else is stored exactly.
 */
export function storableJson(value: unknown): string {
  const text = JSON.stringify(value);
  return /\\u(?:d[89a-f]|0000)/i.test(text) ? JSON.stringify(storableValue(JSON.parse(text))) : text;
}

/** drizzle's jsonb, writing through `storableJson` and reading as drizzle's own does. */
export const jsonb = customType<{ data: unknown; driverData: string }>({
  dataType: () => 'jsonb',
  toDriver: storableJson,
  fromDriver: (value: unknown) => {
    // postgres.js hands jsonb over as text; PGlite has already parsed it.
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  },
});
