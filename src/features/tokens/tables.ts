import { boolean, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { roles } from '../../core/auth.js';
import { createdAt, tstz } from '../../db/columns.js';
import { jsonb } from '../../db/jsonb.js';

export const apiTokens = pgTable(
  'api_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    role: text('role', { enum: roles }).notNull(),
    /** sha256 of the secret; the secret itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    /** AGENT: the user its runs act for. */
    userId: text('user_id'),
    /** APPROVER and VIEWER: the users (ids or globs) whose runs they see. */
    users: jsonb('users').$type<string[]>().notNull().default([]),
    /** APPROVER and VIEWER: an admin granted every user (`*`). */
    allUsers: boolean('all_users').notNull().default(false),
    /** AGENT: the profiles (names or globs) its runs may use. */
    profiles: jsonb('profiles').$type<string[]>().notNull().default([]),
    /** AGENT: the plan nodes its runs may name; null for any. */
    planNodes: jsonb('plan_nodes').$type<string[]>(),
    extensionId: text('extension_id'),
    /** A token from before bindings, working as it did because an admin marked it so. */
    legacyUnbound: boolean('legacy_unbound').notNull().default(false),
    createdAt: createdAt(),
    expiresAt: tstz('expires_at'),
    /** Updated at most once a minute, so that authenticating stays a read. */
    lastUsedAt: tstz('last_used_at'),
    /** After a rotation, the previous secret's hash, valid until `previousValidUntil`. */
    previousTokenHash: text('previous_token_hash'),
    previousValidUntil: tstz('previous_valid_until'),
    rotatedAt: tstz('rotated_at'),
    revokedAt: tstz('revoked_at'),
  },
  (t) => [
    uniqueIndex('api_tokens_hash_idx').on(t.tokenHash),
    uniqueIndex('api_tokens_previous_hash_idx').on(t.previousTokenHash),
  ],
);
