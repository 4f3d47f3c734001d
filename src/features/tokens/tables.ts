import { pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { roles } from '../../core/auth.js';
import { createdAt, tstz } from '../../db/columns.js';

export const apiTokens = pgTable(
  'api_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    role: text('role', { enum: roles }).notNull(),
    /** sha256 of the secret; the secret itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    userId: text('user_id'),
    extensionId: text('extension_id'),
    createdAt: createdAt(),
    revokedAt: tstz('revoked_at'),
  },
  (t) => [uniqueIndex('api_tokens_hash_idx').on(t.tokenHash)],
);
