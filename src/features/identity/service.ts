import { sql } from 'drizzle-orm';
import { bindingProblem } from '../../core/access.js';
import type { Principal } from '../../core/auth.js';
import type { Logger } from '../../core/logger.js';
import type { Db } from '../../db/client.js';
import type { Authentication, TokenService } from '../tokens/index.js';
import { looksLikeJwt } from './rules/algorithms.js';
import { bindingFromClaims, type ClaimBinding } from './rules/claims.js';
import type { IdentitySettings } from './settings.js';
import { idpIdentities } from './tables.js';
import { IdpVerifier } from './verifier.js';

/**
 * Where the raw IdP token of a request is kept beside its principal, for token exchange with
 * upstreams (per-user credentials); never on the principal, which travels into journals and logs.
 */
export interface IdpTokenSink {
  remember(principal: Principal, token: { token: string; expiresAt: Date | null }): void;
}

/** Identity rows known to be current, by issuer, subject, user id and display name; bounded. */
const KNOWN_ROWS = 10_000;

/**
 * Every bearer secret is authenticated here: an API token as it always was, or, when OIDC is on and
 * the secret is a JWT, an IdP token (verified, then mapped to a binding by its claims).
 */
export class IdentityService {
  private readonly verifier: IdpVerifier | null;
  private readonly known = new Map<string, string>();

  private readonly idpTokens: IdpTokenSink;

  constructor(
    private readonly db: Db,
    private readonly tokens: Pick<TokenService, 'authenticate'>,
    private readonly settings: IdentitySettings | null,
    { logger, idpTokens }: { logger: Logger; idpTokens: IdpTokenSink },
  ) {
    this.verifier = settings ? new IdpVerifier(settings, logger) : null;
    this.idpTokens = idpTokens;
  }

  /** OIDC_ISSUER when IdP tokens are accepted; null when only API tokens are. */
  get issuer(): string | null {
    return this.settings?.issuer ?? null;
  }

  /** The principal a bearer secret stands for, why it is refused, or null when it matches nothing. */
  async authenticate(secret: string, now = new Date()): Promise<Authentication | null> {
    if (!this.verifier || !this.settings || !looksLikeJwt(secret))
      return this.tokens.authenticate(secret, now);
    const verified = await this.verifier.verify(secret);
    if ('refused' in verified) return verified;
    const mapped = bindingFromClaims(verified.payload, this.settings.claims);
    if (!mapped.ok) return { refused: mapped.reason };
    const expiresAt = new Date(verified.payload.exp! * 1000);
    const principal = await this.principalOf(mapped.binding, expiresAt);
    const problem = bindingProblem(principal);
    if (problem) return { refused: problem };
    this.idpTokens.remember(principal, { token: secret, expiresAt });
    return { principal };
  }

  private async principalOf(binding: ClaimBinding, expiresAt: Date): Promise<Principal> {
    const issuer = this.settings!.issuer;
    return {
      tokenId: await this.identityId(issuer, binding),
      name: binding.displayName,
      role: binding.role,
      userId: binding.role === 'AGENT' ? binding.userId : null,
      users: binding.users,
      profiles: binding.profiles,
      planNodes: null,
      extensionId: null,
      legacyUnbound: false,
      idp: { issuer, subject: binding.subject, displayName: binding.displayName, expiresAt },
    };
  }

  /** Finds or creates the person's row; written only when it is new or its user id or name changed. */
  private async identityId(issuer: string, binding: ClaimBinding): Promise<string> {
    const key = JSON.stringify([issuer, binding.subject, binding.userId, binding.displayName]);
    const known = this.known.get(key);
    if (known) return known;
    const [row] = await this.db
      .insert(idpIdentities)
      .values({ issuer, subject: binding.subject, userId: binding.userId, displayName: binding.displayName })
      .onConflictDoUpdate({
        target: [idpIdentities.issuer, idpIdentities.subject],
        set: { userId: binding.userId, displayName: binding.displayName, updatedAt: sql`now()` },
      })
      .returning({ id: idpIdentities.id });
    if (this.known.size >= KNOWN_ROWS) this.known.clear();
    this.known.set(key, row!.id);
    return row!.id;
  }
}
