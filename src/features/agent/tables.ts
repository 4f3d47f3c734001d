import { index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { runs } from '../../calls/tables.js';
import type { Principal } from '../../core/auth.js';
import { createdAt, tstz, updatedAt } from '../../db/columns.js';
import { jsonb } from '../../db/jsonb.js';
import type { ContextPreset } from '../../model/context/preset.js';
import { type AgentStopReason, agentJobPhases, agentJobStatuses, agentStopReasons } from './rules/stop.js';

/**
 * Issue 15: the loop the server drives for a run, one job per run. The job is the loop's whole
 * state: any process may pick it up at its phase once its lease is free or ran out, so nothing about
 * a run is held in memory between steps.
 */
export const agentJobs = pgTable(
  'agent_jobs',
  {
    runId: uuid('run_id')
      .primaryKey()
      .references(() => runs.id),
    status: text('status', { enum: agentJobStatuses }).notNull(),
    /** REQUEST: the next model request is due. WAIT: the last turn's calls are not all finished. */
    phase: text('phase', { enum: agentJobPhases }).notNull(),
    /** Model turns stored by the loop so far (the next request is round `round + 1`). */
    round: integer('round').notNull().default(0),
    stopReason: text('stop_reason', { enum: agentStopReasons }).$type<AgentStopReason>(),
    connection: text('connection').notNull(),
    /** The inline preset, or null for `presetName`. */
    preset: jsonb('preset').$type<ContextPreset>(),
    presetName: text('preset_name'),
    prompt: text('prompt').notNull(),
    maxRounds: integer('max_rounds').notNull(),
    maxTokens: integer('max_tokens'),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    reasoningTokens: integer('reasoning_tokens').notNull().default(0),
    /**
     * Who started the loop, without any secret: the loop requests and submits as them, so the run,
     * its calls and the journal read as if their client had driven it.
     */
    principal: jsonb('principal').$type<Principal>().notNull(),
    leaseOwner: text('lease_owner'),
    leaseExpiresAt: tstz('lease_expires_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('agent_jobs_status_idx').on(t.status, t.leaseExpiresAt)],
);

/** One row per model request the loop completed: the turn it stored and what it cost. */
export const agentRounds = pgTable(
  'agent_rounds',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id),
    round: integer('round').notNull(),
    turnId: uuid('turn_id').notNull(),
    calls: integer('calls').notNull(),
    /** Null when the provider reported no usage (or the round was adopted after a crash). */
    inputTokens: integer('input_tokens'),
    outputTokens: integer('output_tokens'),
    reasoningTokens: integer('reasoning_tokens'),
    attempts: integer('attempts').notNull(),
    durationMs: integer('duration_ms').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('agent_rounds_run_round_idx').on(t.runId, t.round),
    uniqueIndex('agent_rounds_turn_idx').on(t.turnId),
  ],
);
