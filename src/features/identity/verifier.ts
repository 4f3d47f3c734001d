import { createRemoteJWKSet, decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from 'jose';
import type { Logger } from '../../core/logger.js';
import { algorithmProblem } from './rules/algorithms.js';
import { type IdentitySettings, JWKS_MAX_AGE_MS } from './settings.js';

/** What the server reads from an OpenID provider's discovery document. */
interface IdpMetadata {
  issuer: string;
  jwks_uri: string;
}

export type Verification = { payload: JWTPayload } | { refused: string };

/** A request waits at most this for the discovery document (jose bounds the key set's fetch the same way). */
const DISCOVERY_TIMEOUT_MS = 5_000;

/** The discovery URL of an issuer (OpenID Connect Discovery 1.0, section 4). */
export const discoveryUrl = (issuer: string) =>
  `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;

/** Why jose refused a token, in words a caller can act on. */
function refusalOf(error: unknown): string | null {
  if (error instanceof errors.JWTExpired) return 'this token expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return 'this token was issued by another issuer';
    if (error.claim === 'aud') return 'this token is for another audience';
    if (error.claim === 'nbf') return 'this token is not valid yet (nbf)';
    return `this token's ${error.claim} claim is not valid: ${error.reason}`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return "this token's signature does not verify";
  if (error instanceof errors.JWKSNoMatchingKey) return "no key of the IdP matches this token's kid";
  if (error instanceof errors.JOSEAlgNotAllowed) return "this token's algorithm is not allowed";
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid)
    return 'this is not a valid JWT';
  return null;
}

/**
 * Verifies IdP tokens: discovery once (again after a failure), the JWKS through jose's remote key
 * set, which caches the keys and fetches them again when a token names a kid it does not know
 * (key rotation), at most once per cooldown.
 */
export class IdpVerifier {
  private discovered: Promise<{ keys: ReturnType<typeof createRemoteJWKSet> }> | null = null;

  constructor(
    private readonly settings: IdentitySettings,
    private readonly logger: Logger,
  ) {}

  /** The discovery document and the key set it names, read once; a failed read is retried by the next caller. */
  private discover() {
    this.discovered ??= this.readDiscovery().catch((error: unknown) => {
      this.discovered = null;
      throw error;
    });
    return this.discovered;
  }

  private async readDiscovery() {
    const url = discoveryUrl(this.settings.issuer);
    const response = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
    });
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    const metadata = (await response.json()) as IdpMetadata;
    // OpenID Connect Discovery 1.0 section 4.3: a document naming another issuer must not be used.
    if (metadata.issuer !== this.settings.issuer)
      throw new Error(`${url} names issuer ${String(metadata.issuer)}, not ${this.settings.issuer}`);
    if (typeof metadata.jwks_uri !== 'string') throw new Error(`${url} names no jwks_uri`);
    const keys = createRemoteJWKSet(new URL(metadata.jwks_uri), {
      cooldownDuration: this.settings.jwksCooldownMs,
      cacheMaxAge: JWKS_MAX_AGE_MS,
    });
    return { keys };
  }

  async verify(token: string): Promise<Verification> {
    let alg: unknown;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      return { refused: 'this is not a valid JWT' };
    }
    const problem = algorithmProblem(alg, this.settings.algorithms);
    if (problem) return { refused: problem };
    let keys: Awaited<ReturnType<IdpVerifier['discover']>>['keys'];
    try {
      keys = (await this.discover()).keys;
    } catch (error) {
      this.logger.warn(
        { err: error, issuer: this.settings.issuer },
        'reading the IdP discovery document failed',
      );
      return { refused: "the IdP's discovery document cannot be read or names another issuer; try again" };
    }
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.settings.issuer,
        audience: [...this.settings.audience],
        algorithms: [...this.settings.algorithms],
        requiredClaims: ['exp', 'sub'],
      });
      return { payload };
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal) return { refused: refusal };
      this.logger.warn({ err: error, issuer: this.settings.issuer }, 'checking an IdP token failed');
      return { refused: "the IdP's keys cannot be read to check this token; try again" };
    }
  }
}
