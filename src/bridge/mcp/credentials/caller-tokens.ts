import type { Principal } from '../../../core/auth.js';

/** An IdP access token a request came with, and when it stops working (null when it did not say). */
export interface IdpToken {
  token: string;
  expiresAt: Date | null;
}

/**
 * The port for "the caller's IdP token": whatever authenticates a request with an IdP bearer token
 * (issue 29 item 1) remembers it here against the principal it made, and token exchange reads it
 * for the same request. It is kept beside the principal, not on it, so that the raw token never
 * travels where principals go (journal actors, logs, caches), and it is forgotten with the
 * principal, when the request ends. An API token's principal has none.
 */
export class CallerIdpTokens {
  private readonly tokens = new WeakMap<Principal, IdpToken>();

  remember(principal: Principal, token: IdpToken): void {
    this.tokens.set(principal, token);
  }

  of(principal: Principal): IdpToken | null {
    return this.tokens.get(principal) ?? null;
  }
}
