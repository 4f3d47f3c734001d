import { customType, timestamp } from 'drizzle-orm/pg-core';

/** Column helpers shared by every table file. */
export const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
export const createdAt = () => tstz('created_at').notNull().defaultNow();
export const updatedAt = () => tstz('updated_at').notNull().defaultNow();

// Bytes, not text: stored content need not be UTF-8, and text columns cannot hold NUL.
export const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

/**
 * `json`, not `jsonb`: Postgres keeps json text exactly as given (key order, spacing, number
 * spellings), which a lossless export needs. Both drivers parse json on the way out, so code that
 * needs the exact text selects `column::text`.
 */
export const rawJson = customType<{ data: string; driverData: string }>({
  dataType: () => 'json',
  fromDriver: (value) => (typeof value === 'string' ? value : JSON.stringify(value)),
});
