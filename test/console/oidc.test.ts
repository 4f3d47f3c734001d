import { describe, expect, test } from 'vitest';
import {
  authorizationUrl,
  base64url,
  codeChallenge,
  endSessionUrl,
  jwtClaims,
  type PendingSignIn,
  readCallback,
  readDiscovery,
  type SignInConfig,
  sessionFromTokens,
  tokenRequestBody,
} from '../../console/src/logic/oidc.js';

const issuer = 'https://idp.example/realms/agents';
const config: SignInConfig = {
  issuer,
  clientId: 'approval-console',
  scope: 'openid profile email',
  resource: null,
  token: 'access_token',
};
const pending: PendingSignIn = {
  state: 'state-1',
  nonce: 'nonce-1',
  verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
  redirectUri: 'https://ats.example/console/callback',
  returnTo: '#/calls/c1',
};
const discoveryDoc = {
  issuer,
  authorization_endpoint: `${issuer}/auth`,
  token_endpoint: `${issuer}/token`,
  end_session_endpoint: `${issuer}/logout`,
  code_challenge_methods_supported: ['S256'],
};
const discovery = readDiscovery(discoveryDoc, issuer);

/** An unsigned JWT: the console reads claims only, the server checks signatures. */
const jwt = (claims: Record<string, unknown>) =>
  `e30.${base64url(new TextEncoder().encode(JSON.stringify(claims)))}.sig`;

describe('PKCE', () => {
  test('the S256 challenge of the verifier in RFC 7636 appendix B is the one the RFC gives', async () => {
    expect(await codeChallenge(pending.verifier)).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });
});

describe('discovery', () => {
  test('gives the endpoints of the configured issuer', () => {
    expect(discovery).toEqual({
      issuer,
      authorizationEndpoint: `${issuer}/auth`,
      tokenEndpoint: `${issuer}/token`,
      endSessionEndpoint: `${issuer}/logout`,
    });
  });

  test('a document naming another issuer is refused', () => {
    expect(() => readDiscovery({ ...discoveryDoc, issuer: 'https://evil.example' }, issuer)).toThrow(
      "the IdP's discovery names issuer https://evil.example, not https://idp.example/realms/agents",
    );
  });

  test('an IdP without S256 PKCE is refused', () => {
    expect(() =>
      readDiscovery({ ...discoveryDoc, code_challenge_methods_supported: ['plain'] }, issuer),
    ).toThrow('the IdP does not support PKCE with S256');
  });

  test('an IdP without sign-out has no end_session endpoint', () => {
    const { end_session_endpoint: _, ...rest } = discoveryDoc;
    expect(readDiscovery(rest, issuer).endSessionEndpoint).toBeNull();
  });
});

describe('the authorization request', () => {
  test('asks for a code with the S256 challenge, state and nonce', () => {
    const url = new URL(authorizationUrl({ discovery, config, pending, challenge: 'ch' }));
    expect(url.origin + url.pathname).toBe(`${issuer}/auth`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'approval-console',
      redirect_uri: 'https://ats.example/console/callback',
      scope: 'openid profile email',
      state: 'state-1',
      nonce: 'nonce-1',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
    });
  });

  test('names the resource when the server is configured with one', () => {
    const url = new URL(
      authorizationUrl({
        discovery,
        config: { ...config, resource: 'https://ats.example/' },
        pending,
        challenge: 'ch',
      }),
    );
    expect(url.searchParams.get('resource')).toBe('https://ats.example/');
  });
});

describe('the redirect back', () => {
  test('gives the code when the state is this tab’s and the iss is the IdP’s', () => {
    expect(readCallback(`?code=abc&state=state-1&iss=${encodeURIComponent(issuer)}`, pending, issuer)).toBe(
      'abc',
    );
  });

  test('another state is refused', () => {
    expect(() => readCallback('?code=abc&state=other', pending, issuer)).toThrow(
      'the answer from the IdP is not for the sign-in this tab started',
    );
  });

  test('an answer from another issuer is refused', () => {
    expect(() =>
      readCallback('?code=abc&state=state-1&iss=https%3A%2F%2Fother.example', pending, issuer),
    ).toThrow('the answer came from https://other.example, not https://idp.example/realms/agents');
  });

  test('a tab that started no sign-in takes no code', () => {
    expect(() => readCallback('?code=abc&state=state-1', null, issuer)).toThrow(
      'this tab did not start a sign-in (or it was already finished)',
    );
  });

  test('the IdP’s refusal is shown with its description', () => {
    expect(() =>
      readCallback('?error=access_denied&error_description=End-User+aborted&state=state-1', pending, issuer),
    ).toThrow('the IdP refused: End-User aborted (access_denied)');
  });
});

describe('the code exchange', () => {
  test('a public client sends the verifier and no secret', () => {
    expect(Object.fromEntries(tokenRequestBody({ config, pending, code: 'abc' }))).toEqual({
      grant_type: 'authorization_code',
      code: 'abc',
      redirect_uri: 'https://ats.example/console/callback',
      client_id: 'approval-console',
      code_verifier: pending.verifier,
    });
  });

  test('the session is the access token, ending at its exp, named by the ID token', () => {
    const accessToken = jwt({ exp: 1_800_000_000 });
    const idToken = jwt({ nonce: 'nonce-1', name: 'Alice Example', sub: 'a1' });
    const answer = { access_token: accessToken, id_token: idToken, expires_in: 60, token_type: 'Bearer' };
    expect(sessionFromTokens(answer, { config, pending, now: 0 })).toEqual({
      token: accessToken,
      expiresAt: 1_800_000_000_000,
      idToken,
      name: 'Alice Example',
    });
  });

  test('an opaque access token ends after expires_in', () => {
    const answer = { access_token: 'opaque', expires_in: 60 };
    expect(sessionFromTokens(answer, { config, pending, now: 1_000 }).expiresAt).toBe(61_000);
  });

  test('with token: id_token the ID token is the bearer token', () => {
    const idToken = jwt({ nonce: 'nonce-1', email: 'alice@example.com', exp: 1_800_000_000 });
    const session = sessionFromTokens(
      { access_token: 'opaque', id_token: idToken, expires_in: 3600 },
      { config: { ...config, token: 'id_token' }, pending, now: 0 },
    );
    expect(session).toMatchObject({
      token: idToken,
      expiresAt: 1_800_000_000_000,
      name: 'alice@example.com',
    });
  });

  test('an ID token of another sign-in (nonce) is refused', () => {
    const answer = { access_token: 'a', id_token: jwt({ nonce: 'replayed' }) };
    expect(() => sessionFromTokens(answer, { config, pending, now: 0 })).toThrow(
      'the ID token is not from the sign-in this tab started (nonce)',
    );
  });

  test('the token endpoint’s error is shown', () => {
    const answer = { error: 'invalid_grant', error_description: 'grant request is invalid' };
    expect(() => sessionFromTokens(answer, { config, pending, now: 0 })).toThrow(
      'the IdP refused the code: grant request is invalid (invalid_grant)',
    );
  });

  test('a token that is not a JWT has no claims', () => {
    expect(jwtClaims('opaque')).toBeNull();
  });
});

describe('sign-out', () => {
  test('goes to the IdP’s end_session endpoint with the ID token and back to the console', () => {
    const url = new URL(
      endSessionUrl({
        discovery,
        clientId: 'approval-console',
        idToken: 'id.t.k',
        postLogoutRedirectUri: 'https://ats.example/console/',
      })!,
    );
    expect(url.origin + url.pathname).toBe(`${issuer}/logout`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'approval-console',
      id_token_hint: 'id.t.k',
      post_logout_redirect_uri: 'https://ats.example/console/',
    });
  });

  test('an IdP without end_session leaves nothing to visit', () => {
    expect(
      endSessionUrl({
        discovery: { ...discovery, endSessionEndpoint: null },
        clientId: 'c',
        idToken: null,
        postLogoutRedirectUri: 'https://ats.example/console/',
      }),
    ).toBeNull();
  });
});
