import { boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { JsonSchema, ToolAnnotations, ToolBudget } from '../domain/tool-spec.js';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const tools = pgTable('tools', {
  name: text('name').primaryKey(),
  title: text('title').notNull(),
  description: text('description').notNull(),
  inputSchema: jsonb('input_schema').$type<JsonSchema>().notNull(),
  outputSchema: jsonb('output_schema').$type<JsonSchema>(),
  annotations: jsonb('annotations').$type<ToolAnnotations>().notNull(),
  visibility: text('visibility', { enum: ['MODEL', 'USER_ONLY'] }).notNull(),
  permission: text('permission', { enum: ['ALWAYS_ALLOW', 'APPROVAL_REQUIRED', 'DENY'] }).notNull(),
  budget: jsonb('budget').$type<ToolBudget>().notNull(),
  source: text('source', { enum: ['BUILT_IN', 'MCP', 'EXTENSION', 'SKILL'] }).notNull(),
  enabled: boolean('enabled').notNull().default(true),
  /** Which extension or MCP server a tool belongs to; null for built-in and admin-registered tools. */
  owner: text('owner'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const policyRules = pgTable(
  'policy_rules',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    layer: text('layer', { enum: ['PLATFORM', 'USER', 'PROFILE', 'PLAN_NODE', 'SOURCE'] }).notNull(),
    scopeId: text('scope_id'),
    toolPattern: text('tool_pattern').notNull(),
    effect: text('effect', { enum: ['ALLOW', 'DENY', 'ASK'] }).notNull(),
    skipApproval: boolean('skip_approval').notNull().default(false),
    budget: jsonb('budget').$type<ToolBudget>(),
    reason: text('reason'),
    createdBy: text('created_by'),
    createdAt: createdAt(),
  },
  (t) => [index('policy_rules_layer_scope_idx').on(t.layer, t.scopeId)],
);

export const apiTokens = pgTable(
  'api_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    role: text('role', { enum: ['ADMIN', 'APPROVER', 'AGENT', 'EXTENSION', 'VIEWER'] }).notNull(),
    /** sha256 of the secret; the secret itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    userId: text('user_id'),
    extensionId: text('extension_id'),
    createdAt: createdAt(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('api_tokens_hash_idx').on(t.tokenHash)],
);
