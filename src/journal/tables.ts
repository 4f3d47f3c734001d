import { bigint, boolean, index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { journalEventTypes } from '../core/journal-event.js';
import { createdAt } from '../db/columns.js';
import { jsonb } from '../db/jsonb.js';

/**
 * One row: what is added to every position, so that positions keep growing when the database
 * moves to a cluster whose transaction ids are lower (a dump restored elsewhere). Positions are
 * `(top-level transaction id << 16) + offset + the event's index in its transaction`; see
 * `docs/architecture.md` (journal positions) and the functions in migration 0019.
 */
export const journalOrigin = pgTable('journal_origin', {
  id: boolean('id').primaryKey().default(true),
  offset: bigint('offset', { mode: 'bigint' }).notNull(),
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
