import { z } from 'zod';
import { roles } from '../../../core/auth.js';

/** Roles a group may map to: an EXTENSION is a program bound to one extension id, never a person. */
export const idpRoles = roles.filter((role) => role !== 'EXTENSION') as readonly Exclude<
  (typeof roles)[number],
  'EXTENSION'
>[];
export type IdpRole = (typeof idpRoles)[number];

/** A user, profile or user pattern, as API token bindings spell them. */
const bindingName = z.string().regex(/^[A-Za-z0-9_.@:*?-]{1,200}$/, 'letters, digits and _ . @ : - * ? only');

/** What a person in a group (or anyone, as the default) is bound to: the fields of an API token's binding. */
const bindingEntry = z.strictObject({
  role: z.enum(idpRoles as unknown as [IdpRole, ...IdpRole[]]),
  /** APPROVER and VIEWER: the users whose runs they see; unset: `usersClaim`, else only their own user. */
  users: z.array(bindingName).min(1).optional(),
  /** APPROVER and VIEWER: every user. */
  allUsers: z.boolean().optional(),
  /** AGENT: the profiles its runs may use; unset: `profilesClaim`, else none. */
  profiles: z.array(bindingName).optional(),
});

/**
 * How an IdP token's claims become a principal (the OIDC_CLAIMS_FILE JSON; every field has a
 * default). A claim name is looked up as written first and then as a dotted path, so that
 * `realm_access.roles` (Keycloak) and `https://example.com/groups` (namespaced) both work.
 */
export const claimMappingSchema = z.strictObject({
  /** The user id the person's runs act for and USER policy rules name. */
  userClaim: z.string().min(1).default('sub'),
  /** The first of these that is a non-empty string names the person on decisions and in the journal. */
  displayNameClaims: z.array(z.string().min(1)).min(1).default(['name', 'preferred_username', 'email']),
  /** A list of group names (or one name). */
  groupsClaim: z.string().min(1).default('groups'),
  /** Group → binding, first match wins: list the most powerful first. */
  roles: z.array(bindingEntry.extend({ group: z.string().min(1) })).default([]),
  /** The binding of a person in none of the groups; null: such a person is refused. */
  defaultRole: bindingEntry.nullable().default(null),
  /** A claim listing the users an APPROVER or VIEWER sees, when the matched entry names none. */
  usersClaim: z.string().min(1).nullable().default(null),
  /** A claim listing an AGENT's profiles, when the matched entry names none. */
  profilesClaim: z.string().min(1).nullable().default(null),
});

export type ClaimMapping = z.output<typeof claimMappingSchema>;
export const DEFAULT_CLAIM_MAPPING: ClaimMapping = claimMappingSchema.parse({});
