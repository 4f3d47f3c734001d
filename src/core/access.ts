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

/**
 * Whose policy view a principal may ask for: an agent its own user's (on its profiles), people the
 * users they are bound to. A context without a user shows only what applies to everyone.
 */
export function policyContextProblem(
  principal: Principal,
  context: { userId?: string | null; profileId?: string | null },
): string | null {
  if (principal.role === 'AGENT' && !principal.legacyUnbound) {
    if (context.userId && context.userId !== principal.userId)
      return `this token acts for user ${principal.userId}, not ${context.userId}`;
    if (context.profileId && !matchesAny(principal.profiles, context.profileId))
      return `profile ${context.profileId} is not one of this token's profiles`;
    return null;
  }
  if (context.userId && !coversUser(principal, context.userId))
    return `this token is not bound to user ${context.userId}`;
  return null;
}

/** USER rules are private to their user: people see those of the users they are bound to, and every other layer. */
export const mayReadRule = (principal: Principal, rule: { layer: string; scopeId: string | null }) =>
  rule.layer !== 'USER' || coversUser(principal, rule.scopeId);
