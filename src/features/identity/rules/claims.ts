import type { ClaimMapping, IdpRole } from './claim-mapping.js';

/** What an IdP token's claims bind a person to, as an API token's row would. */
export interface ClaimBinding {
  subject: string;
  displayName: string;
  /** The id the person's runs act for (the `userClaim`), kept on the identity's row whatever the role. */
  userId: string;
  role: IdpRole;
  users: string[];
  profiles: string[];
}

export type ClaimOutcome = { ok: true; binding: ClaimBinding } | { ok: false; reason: string };

/** A user id is a plain id: a pattern character in it would widen what it matches. */
const USER_ID = /^[A-Za-z0-9_.@:-]{1,200}$/;
const NAME = /^[A-Za-z0-9_.@:*?-]{1,200}$/;

/** The claim as written, else as a dotted path into nested objects. */
export function claimAt(claims: Record<string, unknown>, name: string): unknown {
  if (name in claims) return claims[name];
  let at: unknown = claims;
  for (const part of name.split('.')) {
    if (typeof at !== 'object' || at === null || !(part in at)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

function stringsAt(claims: Record<string, unknown>, name: string | null): string[] | null {
  if (name === null) return null;
  const value = claimAt(claims, name);
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return null;
}

/**
 * The binding a verified token's claims give under the mapping, or why they give none. The token
 * cannot widen its binding beyond what the mapping grants its groups: list claims are read only
 * where the mapping names them, and every name must be a plain binding name.
 */
export function bindingFromClaims(claims: Record<string, unknown>, mapping: ClaimMapping): ClaimOutcome {
  const subject = claims.sub;
  if (typeof subject !== 'string' || subject === '')
    return { ok: false, reason: 'the token has no sub claim' };
  const userId = claimAt(claims, mapping.userClaim);
  if (typeof userId !== 'string' || !USER_ID.test(userId))
    return {
      ok: false,
      reason: `the token's ${mapping.userClaim} claim is not a user id (letters, digits and _ . @ : - only)`,
    };
  const groups = stringsAt(claims, mapping.groupsClaim) ?? [];
  const entry = mapping.roles.find((candidate) => groups.includes(candidate.group)) ?? mapping.defaultRole;
  if (!entry)
    return {
      ok: false,
      reason: `none of the token's groups maps to a role (claim ${mapping.groupsClaim}) and no defaultRole is set`,
    };
  const fromClaim = (name: string | null) => stringsAt(claims, name)?.filter((item) => NAME.test(item));
  const people = entry.role === 'APPROVER' || entry.role === 'VIEWER';
  const users = !people
    ? []
    : entry.allUsers
      ? ['*']
      : (entry.users ?? (fromClaim(mapping.usersClaim)?.length ? fromClaim(mapping.usersClaim)! : [userId]));
  const profiles = entry.role === 'AGENT' ? (entry.profiles ?? fromClaim(mapping.profilesClaim) ?? []) : [];
  const named = mapping.displayNameClaims
    .map((name) => claimAt(claims, name))
    .find((value): value is string => typeof value === 'string' && value.trim() !== '');
  return {
    ok: true,
    binding: { subject, displayName: named?.trim() ?? subject, userId, role: entry.role, users, profiles },
  };
}
