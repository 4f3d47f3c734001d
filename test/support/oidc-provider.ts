import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';

/** A person the test IdP knows: the claims its tokens carry. */
export interface IdpPerson {
  name?: string;
  email?: string;
  preferred_username?: string;
  groups?: string[];
}

/** The people every test IdP knows unless a test names others. */
export const idpPeople: Record<string, IdpPerson> = {
  alice: { name: 'Alice Approver', email: 'alice@example.com', groups: ['ats-approvers'] },
  bob: { name: 'Bob Viewer', email: 'bob@example.com', groups: ['ats-staff'] },
  carol: { preferred_username: 'carol', groups: ['ats-agents'] },
  root: { name: 'Root Admin', groups: ['ats-admins', 'ats-approvers'] },
};

/** The public client the harness signs people in with (authorization code + PKCE). */
export const IDP_TEST_CLIENT = 'ats-test';
export const IDP_REDIRECT_URI = 'http://127.0.0.1/callback';
/** The audience of every access token, unless the resource asked for is a `urn:` (then it is that urn). */
export const IDP_AUDIENCE = 'urn:agent-tool-system';

export interface TestIdp {
  issuer: string;
  /** The private signing keys, newest first: a test forges or re-signs with these. */
  keys: JWK[];
  /** Access tokens it issues from now on live this long. */
  accessTokenTtlSeconds: number;
  /**
   * Signs `person` in through the whole authorization code flow with PKCE (the interaction
   * answers itself for that person) and returns the access token: a JWT for `resource`'s audience.
   */
  signIn(person: string, options?: { resource?: string; scope?: string }): Promise<string>;
  /**
   * Follows an authorization request URL (a browser's part) as `person` and returns the URL it
   * redirects back to, with `code` and `state`: what an OAuth client's redirect handler receives.
   */
  authorize(url: string | URL, person: string): Promise<URL>;
  /** A new signing key: tokens from now on carry its kid; the old key stays published for tokens already out. */
  rotateKeys(): Promise<void>;
  close(): Promise<void>;
}

export interface TestIdpOptions {
  people?: Record<string, IdpPerson>;
  /** Sign with these keys instead of fresh ones (another issuer sharing keys, as Entra's tenants do). */
  keys?: JWK[];
  /** More clients (confidential ones for the console, say); the harness's public client is always there. */
  clients?: Configuration['clients'];
}

async function newKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomBytes(6).toString('hex'), alg: 'RS256', use: 'sig' };
}

const base64url = (bytes: Buffer) => bytes.toString('base64url');

/**
 * A real OpenID provider (oidc-provider) on a free port, with its own keys and clients, dynamic
 * client registration, resource indicators (RFC 8707) and JWT access tokens. Its login and consent
 * answer themselves for the person named by `login_hint`, so a test (or Chromium) signs in without
 * a form. Rotating keys builds a new provider on the same port; sessions do not survive that.
 */
export async function startTestIdp(options: TestIdpOptions = {}): Promise<TestIdp> {
  const people = options.people ?? idpPeople;
  const keys = options.keys ? [...options.keys] : [await newKey()];
  let provider: Provider;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const idp: TestIdp = {
    issuer,
    keys,
    accessTokenTtlSeconds: 300,
    signIn: (person, signInOptions = {}) => signIn(idp, person, signInOptions),
    authorize: (url, person) => authorize(url, person),
    async rotateKeys() {
      keys.unshift(await newKey());
      provider = build();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  const build = () => {
    const built = new Provider(issuer, {
      clients: [
        {
          client_id: IDP_TEST_CLIENT,
          token_endpoint_auth_method: 'none',
          redirect_uris: [IDP_REDIRECT_URI],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
        },
        ...(options.clients ?? []),
      ],
      jwks: { keys },
      cookies: { keys: ['test-idp-cookie-key'] },
      ttl: {
        Session: 3600,
        Grant: 3600,
        Interaction: 600,
        IdToken: 600,
        RefreshToken: 3600,
        // Read at each issue, so a test that shortens accessTokenTtlSeconds gets short tokens from then on.
        AccessToken: () => idp.accessTokenTtlSeconds,
      },
      claims: {
        openid: ['sub'],
        profile: ['name', 'preferred_username'],
        email: ['email'],
        groups: ['groups'],
      },
      scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
      findAccount: (_ctx: unknown, sub: string) =>
        people[sub] ? { accountId: sub, claims: () => ({ sub, ...people[sub] }) } : undefined,
      // The access token carries what the server maps: groups and the display name claims.
      extraTokenClaims: (_ctx: unknown, token: { accountId?: string }) => {
        const accountId = token.accountId;
        return accountId && people[accountId] ? { ...people[accountId] } : undefined;
      },
      features: {
        devInteractions: { enabled: false },
        registration: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => IDP_AUDIENCE,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string) => ({
            audience: resource.startsWith('urn:') ? resource : IDP_AUDIENCE,
            scope: 'openid profile email groups',
            accessTokenFormat: 'jwt',
            accessTokenTTL: idp.accessTokenTtlSeconds,
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
      interactions: {
        url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
      },
    });
    built.use(async (ctx, next) => {
      if (!ctx.path.startsWith('/interaction/')) return next();
      await answerInteraction(built, ctx);
    });
    return built;
  };
  provider = build();
  return idp;
}

/** What a person types on the login page: a browser test signs in as a person would. */
const LOGIN_PAGE = (action: string) =>
  `<!doctype html><title>Test IdP sign-in</title><form method="post" action="${action}">` +
  '<label>Account <input name="login" autofocus></label><button type="submit">Sign in</button></form>';

async function formField(ctx: KoaContextWithOIDC, name: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString()).get(name) ?? '';
}

/**
 * Logs in the person `login_hint` names (or, without one, the person typed on its login page)
 * and consents to everything asked for.
 */
async function answerInteraction(provider: Provider, ctx: KoaContextWithOIDC): Promise<void> {
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  let accountId = details.session?.accountId ?? String(details.params.login_hint ?? '');
  if (details.prompt.name === 'login' && accountId === '') {
    if (ctx.method !== 'POST') {
      ctx.type = 'html';
      ctx.body = LOGIN_PAGE(ctx.path);
      return;
    }
    accountId = await formField(ctx, 'login');
  }
  let result: Record<string, unknown>;
  if (details.prompt.name === 'login') {
    result = { login: { accountId } };
  } else {
    const grant = details.grantId
      ? (await provider.Grant.find(details.grantId))!
      : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
      grant.addResourceScope(resource, scopes.join(' '));
    result = { consent: { grantId: await grant.save() } };
  }
  const redirectTo = await provider.interactionResult(ctx.req, ctx.res, result, {
    mergeWithLastSubmission: true,
  });
  ctx.status = 303;
  ctx.redirect(redirectTo);
}

/** Follows redirects with a cookie jar, as a browser would, until one leaves the IdP. */
async function authorize(url: string | URL, person: string): Promise<URL> {
  const start = new URL(url);
  start.searchParams.set('login_hint', person);
  const cookies = new Map<string, string>();
  let next = start;
  for (let hop = 0; hop < 20; hop += 1) {
    const response = await fetch(next, {
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const location = response.headers.get('location');
    if (!location)
      throw new Error(`the IdP answered ${response.status} without a redirect: ${await response.text()}`);
    next = new URL(location, next);
    if (next.origin !== start.origin) return next;
  }
  throw new Error('the IdP redirected more than 20 times');
}

async function signIn(
  idp: TestIdp,
  person: string,
  options: { resource?: string; scope?: string },
): Promise<string> {
  const verifier = base64url(randomBytes(32));
  const request = new URL(`${idp.issuer}/auth`);
  request.search = new URLSearchParams({
    client_id: IDP_TEST_CLIENT,
    response_type: 'code',
    redirect_uri: IDP_REDIRECT_URI,
    scope: options.scope ?? 'openid profile email groups',
    code_challenge: base64url(createHash('sha256').update(verifier).digest()),
    code_challenge_method: 'S256',
    resource: options.resource ?? IDP_AUDIENCE,
    state: base64url(randomBytes(8)),
  }).toString();
  const back = await authorize(request, person);
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`the IdP sent no code back: ${back}`);
  const response = await fetch(`${idp.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: IDP_REDIRECT_URI,
      code_verifier: verifier,
      client_id: IDP_TEST_CLIENT,
      resource: options.resource ?? IDP_AUDIENCE,
    }),
  });
  const body = (await response.json()) as { access_token?: string; error_description?: string };
  if (!body.access_token) throw new Error(`the IdP issued no token: ${JSON.stringify(body)}`);
  return body.access_token;
}
