import picomatch from 'picomatch';
import type { Principal } from './auth.js';

/**
 * Who may see what, as pure rules over a principal's bindings. Services apply them (in SQL where
 * they filter lists); nothing here reads a request.
 */

/** Users, profiles and plan nodes are ids: letters, digits and `_ . @ : -`, plus `*` and `?` in a pattern. */
export const BINDING_PATTERN = /^[A-Za-z0-9_.@:*?-]{1,200}$/;

const matchers = new Map<string, (value: string) => boolean>();

/** `*` is any run of characters (dots included), `?` one character; nothing else is special. */
export function bindingMatches(pattern: string, value: string): boolean {
  let matcher = matchers.get(pattern);
  if (!matcher) {
    matcher = picomatch(pattern, {
      dot: true,
      nobrace: true,
      noextglob: true,
      noglobstar: true,
      nonegate: true,
    });
    matchers.set(pattern, matcher);
  }
  return matcher(value);
}

export const matchesAny = (patterns: readonly string[], value: string | null | undefined): boolean =>
  value != null && patterns.some((pattern) => bindingMatches(pattern, value));

/** The users whose runs a principal sees: every user, or those matching these patterns. */
export type UserScope = { all: true } | { all: false; patterns: readonly string[] };

export function userScopeOf(principal: Principal): UserScope {
  switch (principal.role) {
    case 'ADMIN':
    case 'HOST':
      return { all: true };
    case 'APPROVER':
    case 'VIEWER':
      if (principal.legacyUnbound || principal.users.includes('*')) return { all: true };
      return { all: false, patterns: principal.users };
    case 'AGENT':
      if (principal.legacyUnbound) return { all: true };
      return { all: false, patterns: principal.userId ? [principal.userId] : [] };
    case 'EXTENSION':
      return { all: false, patterns: [] };
  }
}

/** Whether a principal's scope covers this user; a run or resource without a user is covered only by an all-users scope. */
export function coversUser(principal: Principal, userId: string | null | undefined): boolean {
  const scope = userScopeOf(principal);
  return scope.all || matchesAny(scope.patterns, userId);
}

/**
 * Agents see the runs their own token created; people see the runs of the users they are bound to,
 * admins and hosts every run; extensions none.
 */
export function maySeeRun(
  principal: Principal,
  run: { userId: string | null; createdByToken: string | null },
) {
  if (principal.role === 'EXTENSION') return false;
  if (principal.role === 'AGENT') return run.createdByToken === principal.tokenId;
  return coversUser(principal, run.userId);
}

/** A binding pattern as a SQL LIKE pattern (escape character `\`). */
export function likePattern(pattern: string): string {
  return pattern
    .replace(/[\\%_]/g, (c) => `\\${c}`)
    .replace(/\*/g, '%')
    .replace(/\?/g, '_');
}

/**
 * Why a token cannot be used as it is bound, or null when it can. Tokens from before bindings
 * existed work only where an admin marked them `legacyUnbound`.
 */
export function bindingProblem(principal: Principal): string | null {
  if (principal.legacyUnbound) return null;
  switch (principal.role) {
    case 'AGENT':
      return principal.userId ? null : 'this AGENT token is bound to no user';
    case 'APPROVER':
    case 'VIEWER':
      return principal.users.length > 0 ? null : `this ${principal.role} token is bound to no users`;
    case 'EXTENSION':
      return principal.extensionId ? null : 'this EXTENSION token names no extension';
    default:
      return null;
  }
}
