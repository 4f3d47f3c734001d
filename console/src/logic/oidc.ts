/**
 * Signing in with the company's OpenID provider: the authorization code flow with PKCE for a public
 * client (RFC 6749, RFC 7636, OpenID Connect Core 3.1). Pure: the page fetches and stores, these
 * functions decide what to send and whether what came back may be used.
 */

/** What the server says about the IdP (`/console/sign-in.json`); null when sign-in with an IdP is off. */
export interface SignInConfig {
  issuer: string;
  clientId: string;
  /** Space-separated; always holds `openid`. */
  scope: string;
  /** An RFC 8707 resource indicator sent with the request, so the access token is issued for this server. */
  resource: string | null;
  /** Which token the server accepts from this IdP: its access token, or (Google) its ID token. */
  token: 'access_token' | 'id_token';
}

/** The parts of the IdP's discovery document the console uses. */
export interface Discovery {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  endSessionEndpoint: string | null;
}

/** Kept in this tab while the person is at the IdP, to check and finish what comes back. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  verifier: string;
  redirectUri: string;
  /** The console page (hash) to return to once signed in. */
  returnTo: string;
}

/** A signed-in session: the bearer token and what signing out and its end need. */
export interface IdpSession {
  token: string;
  /** Milliseconds since the epoch; null when the IdP said nothing about it. */
  expiresAt: number | null;
  /** For the IdP's sign-out (id_token_hint); null when the IdP gave none. */
  idToken: string | null;
  /** Who the IdP says signed in, for the sign-in page's "signed out" line. */
  name: string | null;
}

export class SignInError extends Error {
  override name = 'SignInError';
}

export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** 32 random bytes as base64url: a PKCE verifier (43 characters, RFC 7636 §4.1), a state or a nonce. */
export function randomToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** The S256 code challenge of a verifier (RFC 7636 §4.2). */
export async function codeChallenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

function urlField(doc: Record<string, unknown>, name: string, required: boolean): string | null {
  const value = doc[name];
  if (value === undefined && !required) return null;
  if (typeof value !== 'string' || !URL.canParse(value))
    throw new SignInError(`the IdP's discovery document has no usable ${name}`);
  return value;
}

/**
 * The discovery document, checked: its issuer must be exactly the configured one (OpenID Connect
 * Discovery §4.3), or a document from elsewhere could send the person to another provider.
 */
export function readDiscovery(doc: unknown, issuer: string): Discovery {
  if (typeof doc !== 'object' || doc === null) throw new SignInError("the IdP's discovery is not JSON");
  const fields = doc as Record<string, unknown>;
  if (fields.issuer !== issuer)
    throw new SignInError(`the IdP's discovery names issuer ${String(fields.issuer)}, not ${issuer}`);
  const methods = fields.code_challenge_methods_supported;
  if (Array.isArray(methods) && !methods.includes('S256'))
    throw new SignInError('the IdP does not support PKCE with S256');
  return {
    issuer,
    authorizationEndpoint: urlField(fields, 'authorization_endpoint', true)!,
    tokenEndpoint: urlField(fields, 'token_endpoint', true)!,
    endSessionEndpoint: urlField(fields, 'end_session_endpoint', false),
  };
}

export function authorizationUrl(options: {
  discovery: Discovery;
  config: SignInConfig;
  pending: PendingSignIn;
  challenge: string;
}): string {
  const { discovery, config, pending, challenge } = options;
  const url = new URL(discovery.authorizationEndpoint);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: pending.redirectUri,
    scope: config.scope,
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  if (config.resource) params.resource = config.resource;
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * The code from the IdP's redirect, or why there is none. The state must be the one this tab sent
 * (else the code could be an attacker's, RFC 6749 §10.12), and an `iss` the IdP adds must be its
 * own (RFC 9207: a code from another provider the person also uses).
 */
export function readCallback(search: string, pending: PendingSignIn | null, issuer: string): string {
  const params = new URLSearchParams(search);
  if (!pending) throw new SignInError('this tab did not start a sign-in (or it was already finished)');
  if (params.get('state') !== pending.state)
    throw new SignInError('the answer from the IdP is not for the sign-in this tab started');
  const iss = params.get('iss');
  if (iss !== null && iss !== issuer) throw new SignInError(`the answer came from ${iss}, not ${issuer}`);
  const error = params.get('error');
  if (error) {
    const description = params.get('error_description');
    throw new SignInError(`the IdP refused: ${description ? `${description} (${error})` : error}`);
  }
  const code = params.get('code');
  if (!code) throw new SignInError('the IdP sent no code');
  return code;
}

/** The form the token endpoint gets: a public client proves itself with the PKCE verifier alone. */
export function tokenRequestBody(options: { config: SignInConfig; pending: PendingSignIn; code: string }) {
  const { config, pending, code } = options;
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: pending.redirectUri,
    client_id: config.clientId,
    code_verifier: pending.verifier,
  });
  if (config.resource) body.set('resource', config.resource);
  return body;
}

/** A JWT's claims without checking its signature: only for what the server checks again or the page shows. */
export function jwtClaims(token: string): Record<string, unknown> | null {
  const payload = token.split('.')[1];
  if (token.split('.').length !== 3 || !payload) return null;
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(json, (c) => c.charCodeAt(0));
    const claims: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const stringClaim = (claims: Record<string, unknown> | null, name: string) =>
  typeof claims?.[name] === 'string' ? (claims[name] as string) : null;

/**
 * The session from the token endpoint's answer. The ID token came straight from the token endpoint
 * over TLS, which OpenID Connect Core 3.1.3.7 accepts in place of its signature; its nonce must be
 * the one this tab sent, so an ID token replayed from another sign-in is refused. The server
 * verifies the bearer token itself on every request.
 */
export function sessionFromTokens(
  answer: unknown,
  options: { config: SignInConfig; pending: PendingSignIn; now: number },
): IdpSession {
  const { config, pending, now } = options;
  if (typeof answer !== 'object' || answer === null)
    throw new SignInError('the token endpoint did not answer JSON');
  const fields = answer as Record<string, unknown>;
  if (typeof fields.error === 'string') {
    const description =
      typeof fields.error_description === 'string'
        ? `${fields.error_description} (${fields.error})`
        : fields.error;
    throw new SignInError(`the IdP refused the code: ${description}`);
  }
  const idToken = typeof fields.id_token === 'string' ? fields.id_token : null;
  const idClaims = idToken ? jwtClaims(idToken) : null;
  if (idToken && idClaims?.nonce !== pending.nonce)
    throw new SignInError('the ID token is not from the sign-in this tab started (nonce)');
  const token = config.token === 'id_token' ? idToken : fields.access_token;
  if (typeof token !== 'string' || token === '')
    throw new SignInError(`the IdP's answer holds no ${config.token}`);
  const expiresIn = typeof fields.expires_in === 'number' ? fields.expires_in : null;
  const exp = jwtClaims(token)?.exp;
  const expiresAt =
    typeof exp === 'number'
      ? exp * 1000
      : expiresIn !== null && config.token === 'access_token'
        ? now + expiresIn * 1000
        : null;
  const name =
    stringClaim(idClaims, 'name') ??
    stringClaim(idClaims, 'preferred_username') ??
    stringClaim(idClaims, 'email');
  return { token, expiresAt, idToken, name };
}

/** The IdP's RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2), back to the console. */
export function endSessionUrl(options: {
  discovery: Discovery;
  clientId: string;
  idToken: string | null;
  postLogoutRedirectUri: string;
}): string | null {
  const { discovery, clientId, idToken, postLogoutRedirectUri } = options;
  if (!discovery.endSessionEndpoint) return null;
  const url = new URL(discovery.endSessionEndpoint);
  url.searchParams.set('client_id', clientId);
  if (idToken) url.searchParams.set('id_token_hint', idToken);
  url.searchParams.set('post_logout_redirect_uri', postLogoutRedirectUri);
  return url.toString();
}
