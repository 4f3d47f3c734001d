import { index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz } from '../../db/columns.js';
import { jsonb } from '../../db/jsonb.js';
import { bridgeInvocationStatuses, type ExtensionAnswer } from './rules/extension-tool.js';

/**
 * Issue 6, extension tool bridge. Both tables live in Postgres because the process that dispatches
 * a call, the process the extension is connected to and the process that receives its answer may
 * all differ; no process keeps anything here only in memory.
 */

/** One call handed to an extension. Exactly one of answer / timeout / disconnect / cancel moves it off PENDING. */
export const bridgeInvocations = pgTable(
  'bridge_invocations',
  {
    callId: uuid('call_id').primaryKey(),
    runId: uuid('run_id').notNull(),
    extensionId: text('extension_id').notNull(),
    toolName: text('tool_name').notNull(),
    localName: text('local_name').notNull(),
    arguments: jsonb('arguments').$type<Record<string, unknown>>().notNull(),
    deadline: tstz('deadline').notNull(),
    status: text('status', { enum: bridgeInvocationStatuses }).notNull(),
    answer: jsonb('answer').$type<ExtensionAnswer>(),
    answeredBy: text('answered_by'),
    createdAt: createdAt(),
    finishedAt: tstz('finished_at'),
  },
  (t) => [index('bridge_invocations_extension_idx').on(t.extensionId, t.status)],
);

/**
 * One row per live extension subscription, in whichever process holds it. The process renews
 * `expires_at` while the subscription lasts and deletes the row when it ends; a row left behind by
 * a killed process simply expires.
 */
export const extensionConnections = pgTable(
  'extension_connections',
  {
    id: uuid('id').primaryKey(),
    extensionId: text('extension_id').notNull(),
    tokenId: uuid('token_id').notNull(),
    hubId: text('hub_id').notNull(),
    connectedAt: tstz('connected_at').notNull().defaultNow(),
    expiresAt: tstz('expires_at').notNull(),
  },
  (t) => [index('extension_connections_extension_idx').on(t.extensionId, t.expiresAt)],
);
