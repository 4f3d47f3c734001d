import { bigint, boolean, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, updatedAt } from '../../db/columns.js';
import { jsonb } from '../../db/jsonb.js';
import {
  deliveryStatuses,
  type NotificationEventKind,
  notificationEventKinds,
  notificationKinds,
} from './shapes.js';

/**
 * Issue 14: where people are asked. The secret is write-only: stored here, used to sign bodies,
 * and shown nowhere (the API, the CLI, logs and the journal say only whether one is set).
 */
export const notificationTargets = pgTable('notification_targets', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull().unique(),
  kind: text('kind', { enum: notificationKinds }).notNull(),
  url: text('url').notNull(),
  events: jsonb('events').$type<NotificationEventKind[]>().notNull(),
  consoleUrl: text('console_url'),
  secret: text('secret'),
  enabled: boolean('enabled').notNull().default(true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * One row per notification and target: the outbox the sweep sends from. The body is rendered
 * once, when the row is made, so every retry sends the same bytes (and the same one-time link).
 */
export const notificationDeliveries = pgTable(
  'notification_deliveries',
  {
    id: uuid('id').primaryKey(),
    targetId: uuid('target_id')
      .notNull()
      .references(() => notificationTargets.id, { onDelete: 'cascade' }),
    event: text('event', { enum: notificationEventKinds }).notNull(),
    /** The journal event that caused it: one delivery per event and target, whoever enqueues. */
    eventSeq: bigint('event_seq', { mode: 'bigint' }).notNull(),
    callId: uuid('call_id'),
    runId: uuid('run_id'),
    body: jsonb('body').$type<Record<string, unknown>>().notNull(),
    status: text('status', { enum: deliveryStatuses }).notNull().default('PENDING'),
    attempts: integer('attempts').notNull().default(0),
    /** When the next attempt is due; while an attempt is under way, when its claim runs out. */
    nextAttemptAt: tstz('next_attempt_at').notNull(),
    lastAttemptAt: tstz('last_attempt_at'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    deliveredAt: tstz('delivered_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('notification_deliveries_event_idx').on(t.targetId, t.eventSeq),
    index('notification_deliveries_due_idx').on(t.status, t.nextAttemptAt),
    index('notification_deliveries_call_idx').on(t.callId),
  ],
);

/** One row: the last journal position turned into deliveries. Its row lock makes one enqueuer at a time. */
export const notificationCursor = pgTable('notification_cursor', {
  id: boolean('id').primaryKey().default(true),
  lastSeq: bigint('last_seq', { mode: 'bigint' }).notNull(),
});

/** One-time signed links to a call; the token names the row and carries its signature. */
export const approvalLinks = pgTable(
  'approval_links',
  {
    id: uuid('id').primaryKey(),
    callId: uuid('call_id').notNull(),
    targetId: uuid('target_id'),
    expiresAt: tstz('expires_at').notNull(),
    usedAt: tstz('used_at'),
    usedBy: text('used_by'),
    createdAt: createdAt(),
  },
  (t) => [index('approval_links_call_idx').on(t.callId)],
);

/** Secrets the server made itself because none was configured (the link signing key). */
export const serverSecrets = pgTable('server_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: createdAt(),
});
