import { pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz } from '../../db/columns.js';

/**
 * One row per person an IdP token named (issuer and subject): its id is the principal's tokenId,
 * so the runs and MCP sessions that person's tokens create stay theirs across token renewals.
 */
export const idpIdentities = pgTable(
  'idp_identities',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    /** The user id the claim mapping gave, as of the last token seen. */
    userId: text('user_id').notNull(),
    /** name, preferred_username or email, as of the last token seen. */
    displayName: text('display_name').notNull(),
    createdAt: createdAt(),
    /** Written only when the user id or display name changes, so that authenticating stays a read. */
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('idp_identities_subject_idx').on(t.issuer, t.subject)],
);

export type IdpIdentityRow = typeof idpIdentities.$inferSelect;
