/**
 * The signature algorithms an IdP token may use. Only public-key algorithms: with an HMAC
 * algorithm the "public" key from the JWKS would be the secret, so anyone could sign; `none` is
 * no signature at all. Both are refused before any key is looked at.
 */
export const DEFAULT_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

/** Why a token signed with `alg` is refused before its signature is checked, or null. */
export function algorithmProblem(alg: unknown, allowed: readonly string[]): string | null {
  if (typeof alg !== 'string' || alg === '' || alg.toLowerCase() === 'none')
    return 'unsigned tokens (alg none) are refused';
  if (/^HS\d+$/i.test(alg)) return `HMAC-signed tokens (${alg}) are refused: an IdP signs with a private key`;
  if (!allowed.includes(alg)) return `tokens signed with ${alg} are refused (allowed: ${allowed.join(', ')})`;
  return null;
}

/** Shaped like a JWS in compact form (three base64url parts; an unsigned one has an empty third). */
export const looksLikeJwt = (secret: string) => /^[\w-]+\.[\w-]+\.[\w-]*$/.test(secret);
