import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from '../../db/columns.js';
import { jsonb } from '../../db/jsonb.js';
import { type Sampling, wireFormats } from './connection-input.js';

/**
 * Issue 15: the models the server calls itself, configured by an admin only. The API key and the
 * header values are secrets: stored here, used on the wire, and shown nowhere (the API, the CLI,
 * logs and the journal name them only).
 */
export const modelConnections = pgTable('model_connections', {
  name: text('name').primaryKey(),
  wireFormat: text('wire_format', { enum: wireFormats }).notNull(),
  baseUrl: text('base_url').notNull(),
  model: text('model').notNull(),
  sampling: jsonb('sampling').$type<Sampling>().notNull().default({}),
  timeoutMs: integer('timeout_ms').notNull(),
  apiKey: text('api_key'),
  headers: jsonb('headers').$type<Record<string, string>>().notNull().default({}),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});
