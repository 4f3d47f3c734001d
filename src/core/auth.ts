export const roles = ['ADMIN', 'HOST', 'APPROVER', 'AGENT', 'EXTENSION', 'VIEWER'] as const;
export type Role = (typeof roles)[number];

/**
 * Who is calling: the token that authenticated the request and what it is bound to. The bindings
 * come from the token, never from the request, so an agent cannot widen them by what it sends.
 */
export interface Principal {
  tokenId: string;
  name: string;
  role: Role;
  /** AGENT: the user every run of this token acts for. Other roles: null. */
  userId: string | null;
  /** APPROVER and VIEWER: the users (ids or globs) whose runs they see; `*` only when an admin granted every user. */
  users: readonly string[];
  /** AGENT: the profiles (names or globs) its runs may use; empty when its runs name no profile. */
  profiles: readonly string[];
  /** AGENT: the plan nodes its runs may name; null when any. */
  planNodes: readonly string[] | null;
  extensionId: string | null;
  /** A token from before bindings existed, kept working as it did because an admin marked it so. */
  legacyUnbound: boolean;
  /** The person the company's IdP says sent the request, when the bearer was an IdP token; null for API tokens. */
  idp: IdpIdentity | null;
}

/**
 * Who an IdP token names. `subject` with `issuer` is the stable identity (the `sub` claim);
 * `displayName` is for people reading a decision or the journal (name, preferred_username or email).
 */
export interface IdpIdentity {
  issuer: string;
  subject: string;
  displayName: string;
  /** The token's `exp`: whatever it opened (a subscription, a socket, an MCP stream) ends then. */
  expiresAt: Date;
}

/** Journal actors and decision records name a principal this way. */
export function actorOf(principal: Principal | null): string {
  return principal ? `${principal.role.toLowerCase()}:${principal.name}` : 'system';
}
