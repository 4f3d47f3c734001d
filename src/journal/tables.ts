import { bigint, boolean, index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { journalEventTypes } from '../core/journal-event.js';
import { createdAt } from '../db/columns.js';
import { jsonb } from '../db/jsonb.js';

/** One row: the last journal position handed out. Its row lock orders journal commits. */
export const journalCounter = pgTable('journal_counter', {
  id: boolean('id').primaryKey().default(true),
  lastSeq: bigint('last_seq', { mode: 'bigint' }).notNull(),
});

export const journalEvents = pgTable(
  'journal_events',
  {
    seq: bigint('seq', { mode: 'bigint' }).primaryKey(),
    type: text('type', { enum: journalEventTypes }).notNull(),
    runId: uuid('run_id'),
    callId: uuid('call_id'),
    actor: text('actor').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    at: createdAt(),
  },
  (t) => [
    index('journal_events_run_idx').on(t.runId, t.seq),
    index('journal_events_call_idx').on(t.callId, t.seq),
  ],
);
