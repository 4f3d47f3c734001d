import { sql } from 'drizzle-orm';
import { index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { policyRules, runs, toolCalls } from '../../calls/tables.js';
import type { PolicyCondition } from '../../core/policy-conditions.js';
import { createdAt, tstz } from '../../db/columns.js';
import { jsonb } from '../../db/jsonb.js';

/** A standing grant's scope: ONCE decides one call and is never stored. */
export const storedGrantScopes = ['RUN', 'ALWAYS'] as const;

/**
 * What people granted when approving a call. A RUN grant is read at request time; an ALWAYS grant
 * is the policy rule it saved (`ruleId`), kept here to show who made it and to revoke it.
 */
export const grants = pgTable(
  'grants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    scope: text('scope', { enum: storedGrantScopes }).notNull(),
    toolName: text('tool_name').notNull(),
    /** All must hold on a call's validated arguments; empty for every call of the tool. */
    conditions: jsonb('conditions').$type<PolicyCondition[]>().notNull().default([]),
    /** RUN: the run it covers. */
    runId: uuid('run_id').references(() => runs.id),
    /** RUN: the run's user; ALWAYS: the USER layer the rule is on. Null for a profile grant. */
    userId: text('user_id'),
    /** ALWAYS on a profile: the PROFILE layer the rule is on. */
    profileId: text('profile_id'),
    /** ALWAYS: the rule it saved; null once that rule is gone. */
    ruleId: uuid('rule_id').references(() => policyRules.id, { onDelete: 'set null' }),
    /** The call whose approval made it. */
    sourceCallId: uuid('source_call_id').references(() => toolCalls.id),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
    revokedAt: tstz('revoked_at'),
    revokedBy: text('revoked_by'),
  },
  (t) => [
    index('grants_active_run_idx').on(t.runId, t.toolName).where(sql`${t.revokedAt} is null`),
    index('grants_user_idx').on(t.userId, t.createdAt),
  ],
);

export type GrantRow = typeof grants.$inferSelect;
