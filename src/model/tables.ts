import { index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { runs } from '../calls/tables.js';
import { createdAt } from '../db/columns.js';
import { jsonb } from '../db/jsonb.js';
import { providerKinds, type TurnPart } from './providers/types.js';

/**
 * Issue 5: the assistant turns a run's model produced, in order, so that the next request can
 * replay them. `native` is text, not jsonb: jsonb reorders keys and rewrites numbers, and the turn
 * goes back to the same provider exactly as it came (signatures, encrypted reasoning).
 */
export const modelTurns = pgTable(
  'model_turns',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id),
    /** 0, 1, 2, … within the run, assigned under the run's row lock. */
    index: integer('index').notNull(),
    provider: text('provider', { enum: providerKinds }).notNull(),
    /** sha256 of the canonical response: submitting the same response again finds this turn. */
    responseHash: text('response_hash').notNull(),
    native: text('native').notNull(),
    parts: jsonb('parts').$type<TurnPart[]>().notNull(),
    /** The provider's call ids, in call order (the lifecycle keys calls by them within the run). */
    providerCallIds: jsonb('provider_call_ids').$type<string[]>().notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('model_turns_run_index_idx').on(t.runId, t.index),
    uniqueIndex('model_turns_run_response_idx').on(t.runId, t.responseHash),
    index('model_turns_run_idx').on(t.runId, t.createdAt),
  ],
);

export type ModelTurnRow = typeof modelTurns.$inferSelect;
