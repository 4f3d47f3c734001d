import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import type { PolicyCondition } from '../core/policy-conditions.js';
import { policyEffects, policyLayers } from '../core/policy-rule.js';
import { deniedToolStrategies, runStatuses } from '../core/run.js';
import {
  type ArgumentsEdit,
  type DecisionRecord,
  policyCallers,
  toolCallStatuses,
} from '../core/tool-call.js';
import type { ToolError, ToolResult } from '../core/tool-result.js';
import {
  type JsonSchema,
  type ToolAnnotations,
  type ToolBudget,
  toolPermissions,
  toolSources,
  toolVisibilities,
} from '../core/tool-spec.js';
import { bytea, createdAt, tstz, updatedAt } from '../db/columns.js';
import { jsonb } from '../db/jsonb.js';

/** The lifecycle's own tables: the registry, policy rules, runs, calls and the resources they produce. */

export const tools = pgTable('tools', {
  name: text('name').primaryKey(),
  title: text('title').notNull(),
  description: text('description').notNull(),
  inputSchema: jsonb('input_schema').$type<JsonSchema>().notNull(),
  outputSchema: jsonb('output_schema').$type<JsonSchema>(),
  annotations: jsonb('annotations').$type<ToolAnnotations>().notNull(),
  visibility: text('visibility', { enum: toolVisibilities }).notNull(),
  permission: text('permission', { enum: toolPermissions }).notNull(),
  budget: jsonb('budget').$type<ToolBudget>().notNull(),
  source: text('source', { enum: toolSources }).notNull(),
  enabled: boolean('enabled').notNull().default(true),
  /** Which extension or MCP server a tool belongs to; null for built-in and admin-registered tools. */
  owner: text('owner'),
  /** Authoring niceties kept from the legacy ToolManager (extension tools set them). */
  displayName: text('display_name'),
  approvalTemplate: text('approval_template'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const policyRules = pgTable(
  'policy_rules',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    layer: text('layer', { enum: policyLayers }).notNull(),
    scopeId: text('scope_id'),
    toolPattern: text('tool_pattern').notNull(),
    effect: text('effect', { enum: policyEffects }).notNull(),
    skipApproval: boolean('skip_approval').notNull().default(false),
    budget: jsonb('budget').$type<ToolBudget>(),
    reason: text('reason'),
    /** All must hold on a call's arguments for the rule to apply; empty for a rule that always applies. */
    conditions: jsonb('conditions').$type<PolicyCondition[]>().notNull().default([]),
    createdBy: text('created_by'),
    createdAt: createdAt(),
  },
  (t) => [index('policy_rules_layer_scope_idx').on(t.layer, t.scopeId)],
);

export const runs = pgTable(
  'runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    status: text('status', { enum: runStatuses }).notNull(),
    userId: text('user_id'),
    profileId: text('profile_id'),
    planNodeId: text('plan_node_id'),
    chatId: text('chat_id'),
    workspaceId: text('workspace_id'),
    deniedToolStrategy: text('denied_tool_strategy', { enum: deniedToolStrategies }).notNull(),
    maxCalls: integer('max_calls'),
    maxCallsPerTool: integer('max_calls_per_tool'),
    failure: jsonb('failure').$type<ToolError>(),
    /** The token that created the run: agents read only their own runs. */
    createdByToken: uuid('created_by_token'),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
    finishedAt: tstz('finished_at'),
  },
  (t) => [
    index('runs_status_idx').on(t.status, t.createdAt),
    index('runs_user_idx').on(t.userId, t.createdAt),
  ],
);

/**
 * What an admin configured for the runs of a profile (`*`: every profile without its own row).
 * What an agent asks for at createRun may only tighten these.
 */
export const profileRunDefaults = pgTable('profile_run_defaults', {
  profileId: text('profile_id').primaryKey(),
  deniedToolStrategy: text('denied_tool_strategy', { enum: deniedToolStrategies }),
  maxCalls: integer('max_calls'),
  maxCallsPerTool: integer('max_calls_per_tool'),
  updatedBy: text('updated_by').notNull(),
  updatedAt: updatedAt(),
});

export interface ToolSnapshot {
  title: string;
  source: string;
  annotations: ToolAnnotations;
  displayName?: string | null;
  /** The tool's approval message template, filled with this call's arguments. */
  approvalMessage?: string | null;
}

export const toolCalls = pgTable(
  'tool_calls',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id),
    name: text('name').notNull(),
    arguments: jsonb('arguments').notNull(),
    argumentsHash: text('arguments_hash').notNull(),
    providerCallId: text('provider_call_id'),
    providerMetadata: jsonb('provider_metadata').$type<Record<string, unknown>>(),
    idempotencyKey: text('idempotency_key'),
    status: text('status', { enum: toolCallStatuses }).notNull(),
    approvalRequired: boolean('approval_required').notNull().default(false),
    policyReason: text('policy_reason'),
    /** What the tool was when the call was made: an approval UI shows this even if the spec changes. */
    tool: jsonb('tool').$type<ToolSnapshot>(),
    /** Whether the call used up budget (calls rejected before dispatch do not). */
    countsAgainstBudget: boolean('counts_against_budget').notNull().default(false),
    timeoutMs: integer('timeout_ms'),
    maxOutputTokens: integer('max_output_tokens'),
    approvalExpiresAt: tstz('approval_expires_at'),
    decision: jsonb('decision').$type<DecisionRecord>(),
    /** Distinct approvers the call needs before it runs (quorum), from its budget when requested. */
    approvalsRequired: integer('approvals_required').notNull().default(1),
    /** The run's own user may not approve it (separation of duties), from its budget when requested. */
    selfApprovalForbidden: boolean('self_approval_forbidden').notNull().default(false),
    /** The approvals recorded so far, in order; the last one that reached the quorum is also `decision`. */
    approvals: jsonb('approvals').$type<DecisionRecord[]>().notNull().default([]),
    /** Whose behalf it was requested on, so that an edit is resolved by policy as the original was. */
    caller: text('caller', { enum: policyCallers }).notNull().default('MODEL'),
    /** The model turn that produced it (model_turns.id); null for direct requests. */
    turnId: uuid('turn_id'),
    /** The call a person edited into this one; its answer to the model is this call's. */
    replaces: uuid('replaces').references((): AnyPgColumn => toolCalls.id),
    /** On an EDITED call: who changed its arguments, the JSON Patch, and the call that ran instead. */
    edit: jsonb('edit').$type<ArgumentsEdit>(),
    result: jsonb('result').$type<ToolResult>(),
    error: jsonb('error').$type<ToolError>(),
    leaseOwner: text('lease_owner'),
    leaseExpiresAt: tstz('lease_expires_at'),
    attempts: integer('attempts').notNull().default(0),
    requestedBy: text('requested_by').notNull(),
    requestedAt: createdAt(),
    startedAt: tstz('started_at'),
    finishedAt: tstz('finished_at'),
  },
  (t) => [
    index('tool_calls_run_idx').on(t.runId, t.requestedAt),
    index('tool_calls_status_idx').on(t.status),
    // The sweeps' indexes, each over the calls in one state. A call passes through REQUESTED and
    // STARTED, and until vacuum the status index keeps an entry for each version it left there: the
    // sweeps read them all every second. Walked in order, these skip the dead entries once seen.
    index('tool_calls_ready_idx').on(t.requestedAt).where(sql`${t.status} in ('APPROVED', 'REQUESTED')`),
    index('tool_calls_approval_expiry_idx')
      .on(t.approvalExpiresAt)
      .where(sql`${t.status} = 'AWAITING_APPROVAL'`),
    index('tool_calls_lease_expiry_idx').on(t.leaseExpiresAt).where(sql`${t.status} = 'STARTED'`),
    index('tool_calls_turn_idx').on(t.turnId).where(sql`${t.turnId} is not null`),
    uniqueIndex('tool_calls_provider_call_idx')
      .on(t.runId, t.providerCallId)
      .where(sql`${t.providerCallId} is not null`),
    uniqueIndex('tool_calls_idempotency_idx')
      .on(t.runId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
  ],
);

/**
 * Calls of a run that count against its budget, per tool. A trigger on tool_calls (migration
 * 0017) keeps it in the transaction that writes the call, so reading a run's usage reads one row
 * per tool it used instead of every call it made.
 */
export const runToolUsage = pgTable(
  'run_tool_usage',
  {
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    toolName: text('tool_name').notNull(),
    calls: integer('calls').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.runId, t.toolName] })],
);

/** Content-addressed blobs: large tool output, images, audio. Stored once per sha256. */
export const resources = pgTable('resources', {
  uri: text('uri').primaryKey(),
  sha256: text('sha256').notNull(),
  mimeType: text('mime_type').notNull(),
  size: integer('size').notNull(),
  content: bytea('content').notNull(),
  createdAt: createdAt(),
});

/** Which runs refer to a resource, so that reading it can be authorised like reading the run. */
export const resourceLinks = pgTable(
  'resource_links',
  {
    uri: text('uri')
      .notNull()
      .references(() => resources.uri),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id),
  },
  (t) => [uniqueIndex('resource_links_uri_run_idx').on(t.uri, t.runId)],
);

/** The rows as Drizzle reads them, beside their tables so every module names them from here. */
export type ToolRow = typeof tools.$inferSelect;
export type PolicyRuleRow = typeof policyRules.$inferSelect;
export type RunRow = typeof runs.$inferSelect;
export type ProfileRunDefaultsRow = typeof profileRunDefaults.$inferSelect;
export type ToolCallRow = typeof toolCalls.$inferSelect;
