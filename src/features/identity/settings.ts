import type { ClaimMapping } from './rules/claim-mapping.js';

/** OIDC_* configuration: IdP tokens are accepted only when this is set. */
export interface IdentitySettings {
  /** OIDC_ISSUER: exactly the `iss` its tokens carry and its discovery document names. */
  issuer: string;
  /** OIDC_AUDIENCE: a token must name one of these in `aud`. */
  audience: readonly string[];
  /** OIDC_ALGORITHMS: public-key algorithms only. */
  algorithms: readonly string[];
  /** OIDC_CLAIMS_FILE: how claims become a role and a binding. */
  claims: ClaimMapping;
  /**
   * OIDC_JWKS_COOLDOWN_MS: after the key set was fetched, how long a token with an unknown `kid`
   * waits before it may fetch it again (a rotated-in key is found on the first fetch after that).
   */
  jwksCooldownMs: number;
}

export const DEFAULT_JWKS_COOLDOWN_MS = 30_000;
/** How long a fetched key set is used before it is fetched again even if every kid is known. */
export const JWKS_MAX_AGE_MS = 10 * 60_000;
