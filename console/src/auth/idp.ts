import {
  authorizationUrl,
  codeChallenge,
  type Discovery,
  endSessionUrl,
  type IdpSession,
  type PendingSignIn,
  randomToken,
  readCallback,
  readDiscovery,
  type SignInConfig,
  SignInError,
  sessionFromTokens,
  tokenRequestBody,
} from '../logic/oidc';

/** The path the IdP sends the person back to; register `<console origin>/console/callback` with it. */
export const CALLBACK_PATH = '/console/callback';
const PENDING_KEY = 'ats.oidc.pending';

export const redirectUri = () => `${location.origin}${CALLBACK_PATH}`;
export const isCallback = () => location.pathname === CALLBACK_PATH;

async function json(url: string, init?: RequestInit): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new SignInError(`${new URL(url).origin} did not answer (${(error as Error).message})`);
  }
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new SignInError(`${url} answered ${response.status} without JSON`);
  }
}

/** Whether this server offers sign-in with an IdP, and with which; null when it does not. */
export async function loadSignInConfig(): Promise<SignInConfig | null> {
  const answer = (await json('/console/sign-in.json')) as { oidc: SignInConfig | null };
  return answer.oidc;
}

/** The IdP's discovery document (OpenID Connect Discovery §4), read fresh for each sign-in and sign-out. */
export async function discover(config: SignInConfig): Promise<Discovery> {
  const doc = await json(`${config.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
  return readDiscovery(doc, config.issuer);
}

/** Sends the person to the IdP; what to check on return stays in this tab's session storage. */
export async function startSignIn(config: SignInConfig): Promise<void> {
  const discovery = await discover(config);
  const pending: PendingSignIn = {
    state: randomToken(),
    nonce: randomToken(),
    verifier: randomToken(),
    redirectUri: redirectUri(),
    returnTo: location.hash || '#/',
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  location.assign(
    authorizationUrl({ discovery, config, pending, challenge: await codeChallenge(pending.verifier) }),
  );
}

function takePending(): PendingSignIn | null {
  const stored = sessionStorage.getItem(PENDING_KEY);
  // Used once: a reload of the callback page must not exchange the same code again.
  sessionStorage.removeItem(PENDING_KEY);
  return stored ? (JSON.parse(stored) as PendingSignIn) : null;
}

let finishing: Promise<IdpSession> | null = null;

/**
 * On the callback page: exchanges the code at the token endpoint and puts the console's address
 * back (without the code), on the page the person started from. Once per page load: a code is
 * good for one exchange, and React may run the effect that asks twice.
 */
export function finishSignIn(config: SignInConfig): Promise<IdpSession> {
  finishing ??= exchangeCode(config);
  return finishing;
}

async function exchangeCode(config: SignInConfig): Promise<IdpSession> {
  const pending = takePending();
  const search = location.search;
  history.replaceState(null, '', `/console/${pending?.returnTo ?? '#/'}`);
  const code = readCallback(search, pending, config.issuer);
  const discovery = await discover(config);
  const answer = await json(discovery.tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: tokenRequestBody({ config, pending: pending!, code }),
  });
  return sessionFromTokens(answer, { config, pending: pending!, now: Date.now() });
}

/** The IdP's sign-out page for this session, or null when the IdP has none. */
export async function idpSignOutUrl(config: SignInConfig, idToken: string | null): Promise<string | null> {
  const discovery = await discover(config);
  return endSessionUrl({
    discovery,
    clientId: config.clientId,
    idToken,
    postLogoutRedirectUri: `${location.origin}/console/`,
  });
}
