import { type Client, createClient } from 'graphql-ws';
import { decodeJwt, importJWK, SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, onTestFinished } from 'vitest';
import WebSocket from 'ws';
import { createLogger } from '../../../src/app/logger.js';
import { IdentityService } from '../../../src/features/identity/index.js';
import { identitySettingsFor, idpTest as test } from '../../support/idp-server.js';
import { waitFor } from '../../support/lifecycle.js';
import { startTestIdp } from '../../support/oidc-provider.js';

const refusedWith = (refused: string) => ({ refused });

/** A GraphQL request over the real HTTP server with this bearer. */
async function post(url: string, bearer: string, query: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as {
    data?: Record<string, unknown> | null;
    errors?: Array<{ message: string; extensions?: { code?: string } }>;
  };
}

describe('IdP tokens beside API tokens', () => {
  test('a person in the approvers group is an APPROVER of every user, named by the IdP', async ({
    idp,
    serve,
  }) => {
    const url = await serve();
    const token = await idp.signIn('alice');
    const res = await post(
      url,
      token,
      '{ whoami { name role userId users idp { issuer subject displayName } } }',
    );
    expect(res).toEqual({
      data: {
        whoami: {
          name: 'Alice Approver',
          role: 'APPROVER',
          userId: null,
          users: ['*'],
          idp: { issuer: idp.issuer, subject: 'alice', displayName: 'Alice Approver' },
        },
      },
    });
  });

  test('a person without the group that maps to APPROVER gets the default role, VIEWER of their own user', async ({
    idp,
    serve,
  }) => {
    const url = await serve();
    const token = await idp.signIn('bob');
    expect(await post(url, token, '{ whoami { role users } }')).toEqual({
      data: { whoami: { role: 'VIEWER', users: ['bob'] } },
    });
    const decided = await post(
      url,
      token,
      'mutation { approveToolCall(id: "00000000-0000-4000-8000-000000000000") { id } }',
    );
    expect(decided.errors?.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN']);
  });

  test('every token of one person is the same principal id (its idp_identities row)', async ({
    idp,
    services,
  }) => {
    const first = await services.identity.authenticate(await idp.signIn('carol'));
    const second = await services.identity.authenticate(await idp.signIn('carol'));
    expect(first).toMatchObject({ principal: { role: 'AGENT', userId: 'carol', profiles: ['p1'] } });
    expect(second && 'principal' in second && second.principal.tokenId).toBe(
      first && 'principal' in first && first.principal.tokenId,
    );
  });

  test('an accepted IdP token is kept beside its principal for token exchange, never on it', async ({
    idp,
    services,
  }) => {
    const token = await idp.signIn('carol');
    const outcome = await services.identity.authenticate(token);
    if (!outcome || !('principal' in outcome)) throw new Error('carol was refused');
    expect(services.callerIdpTokens.of(outcome.principal)).toEqual({
      token,
      expiresAt: new Date(decodeJwt(token).exp! * 1000),
    });
    expect(JSON.stringify(outcome.principal)).not.toContain(token);
  });

  test('API tokens keep working unchanged while OIDC is on', async ({ tokens, serve }) => {
    const url = await serve();
    expect(await post(url, tokens.APPROVER, '{ me { name role } whoami { name idp { subject } } }')).toEqual({
      data: { me: { name: 'test-approver', role: 'APPROVER' }, whoami: { name: 'test-approver', idp: null } },
    });
  });

  test('me is NOT_FOUND for an IdP token: it names no API token', async ({ idp, serve }) => {
    const url = await serve();
    const res = await post(url, await idp.signIn('alice'), '{ me { id } }');
    expect(res.errors?.map((e) => [e.extensions?.code, e.message])).toEqual([
      ['NOT_FOUND', 'this request authenticated with an IdP token, not an API token: ask whoami'],
    ]);
  });
});

describe('what is refused', () => {
  test('a token for another audience', async ({ idp, services }) => {
    const token = await idp.signIn('alice', { resource: 'urn:another-api' });
    expect(decodeJwt(token).aud).toBe('urn:another-api');
    expect(await services.identity.authenticate(token)).toEqual(
      refusedWith('this token is for another audience'),
    );
  });

  test('a token whose claims were changed after signing (forged signature)', async ({ idp, services }) => {
    const [header, , signature] = (await idp.signIn('bob')).split('.');
    const claims = { ...decodeJwt(await idp.signIn('bob')), groups: ['ats-admins'] };
    const forged = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    expect(await services.identity.authenticate(forged)).toEqual(
      refusedWith("this token's signature does not verify"),
    );
  });

  test('a token signed by a key of its own under the IdP key id', async ({ idp, services }) => {
    const real = decodeJwt(await idp.signIn('bob'));
    const { privateKey } = await import('jose').then((jose) => jose.generateKeyPair('RS256'));
    const forged = await new SignJWT({ ...real, groups: ['ats-admins'] })
      .setProtectedHeader({ alg: 'RS256', kid: idp.keys[0]!.kid! })
      .sign(privateKey);
    expect(await services.identity.authenticate(forged)).toEqual(
      refusedWith("this token's signature does not verify"),
    );
  });

  test('a token of another issuer, even one signing with the same keys', async ({ idp, services }) => {
    const other = await startTestIdp({ keys: idp.keys });
    onTestFinished(() => other.close());
    const token = await other.signIn('alice');
    expect(await services.identity.authenticate(token)).toEqual(
      refusedWith('this token was issued by another issuer'),
    );
  });

  test('every token while the discovery document names another issuer than OIDC_ISSUER', async ({
    idp,
    services,
  }) => {
    const settings = { ...identitySettingsFor(idp), issuer: `${idp.issuer}/` };
    const identity = new IdentityService(services.database.db, services.tokens, settings, {
      logger: createLogger('silent'),
      idpTokens: services.callerIdpTokens,
    });
    expect(await identity.authenticate(await idp.signIn('alice'))).toEqual(
      refusedWith("the IdP's discovery document cannot be read or names another issuer; try again"),
    );
  });

  test('an unsigned token (alg none)', async ({ idp, services }) => {
    const claims = decodeJwt(await idp.signIn('alice'));
    const unsigned = new UnsecuredJWT({ ...claims }).encode();
    expect(await services.identity.authenticate(unsigned)).toEqual(
      refusedWith('unsigned tokens (alg none) are refused'),
    );
  });

  test('an HMAC-signed token (HS256), even with the IdP public key as the secret', async ({
    idp,
    services,
  }) => {
    const claims = decodeJwt(await idp.signIn('alice'));
    const publicKey = Buffer.from(
      JSON.stringify({ kty: idp.keys[0]!.kty, n: idp.keys[0]!.n, e: idp.keys[0]!.e }),
    );
    const hmac = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'HS256', kid: idp.keys[0]!.kid! })
      .sign(publicKey);
    expect(await services.identity.authenticate(hmac)).toEqual(
      refusedWith('HMAC-signed tokens (HS256) are refused: an IdP signs with a private key'),
    );
  });

  test('an expired token, and over HTTP it is UNAUTHENTICATED with the reason', async ({
    idp,
    services,
    serve,
  }) => {
    const claims = decodeJwt(await idp.signIn('alice'));
    const key = await importJWK(idp.keys[0]!, 'RS256');
    const expired = await new SignJWT({ ...claims, iat: claims.iat! - 600, exp: claims.iat! - 300 })
      .setProtectedHeader({ alg: 'RS256', kid: idp.keys[0]!.kid! })
      .sign(key);
    expect(await services.identity.authenticate(expired)).toEqual(refusedWith('this token expired'));
    const res = await post(await serve(), expired, '{ whoami { role } }');
    expect(res.errors?.map((e) => [e.extensions?.code, e.message])).toEqual([
      ['UNAUTHENTICATED', 'authentication failed: this token expired'],
    ]);
  });

  test('a token that is not valid yet (nbf)', async ({ idp, services }) => {
    const claims = decodeJwt(await idp.signIn('alice'));
    const key = await importJWK(idp.keys[0]!, 'RS256');
    const early = await new SignJWT({ ...claims, nbf: claims.exp! - 10 })
      .setProtectedHeader({ alg: 'RS256', kid: idp.keys[0]!.kid! })
      .sign(key);
    expect(await services.identity.authenticate(early)).toEqual(
      refusedWith('this token is not valid yet (nbf)'),
    );
  });
});

test('a rotated-in signing key is picked up: tokens with the new kid are accepted, old ones still are', async ({
  idp,
  services,
}) => {
  const before = await idp.signIn('alice');
  expect(await services.identity.authenticate(before)).toMatchObject({ principal: { role: 'APPROVER' } });
  await idp.rotateKeys();
  const after = await idp.signIn('alice');
  expect(decodeJwt(after).iss).toBe(idp.issuer);
  expect((await import('jose')).decodeProtectedHeader(after).kid).toBe(idp.keys[0]!.kid);
  expect(await services.identity.authenticate(after)).toMatchObject({ principal: { role: 'APPROVER' } });
  expect(await services.identity.authenticate(before)).toMatchObject({ principal: { role: 'APPROVER' } });
});

test('an IdP token that expires mid-subscription ends the subscription and closes the socket (4401)', async ({
  idp,
  services,
  serve,
}) => {
  const url = await serve();
  const token = await idp.signIn('alice');
  const closed: { code?: number; reason?: string } = {};
  let client: Client | null = null;
  await new Promise<void>((resolve) => {
    client = createClient({
      url: url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => {},
      on: {
        connected: () => resolve(),
        closed: (event) => {
          const { code, reason } = event as { code: number; reason: string };
          Object.assign(closed, { code, reason });
        },
      },
    });
  });
  onTestFinished(() => client?.dispose());
  const results: Array<{ errors?: Array<{ message: string }> }> = [];
  client!.subscribe(
    { query: 'subscription { approvalQueue { id } }' },
    { next: (value) => void results.push(value as never), error: () => {}, complete: () => {} },
  );
  await waitFor(async () => services.tokenWatch.size >= 2);
  await services.tokenWatch.check(new Date(decodeJwt(token).exp! * 1000 + 1));
  await waitFor(async () => closed.code !== undefined);
  expect(closed).toMatchObject({ code: 4401, reason: 'token expired' });
  expect(results.at(-1)?.errors?.map((e) => e.message)).toEqual(['token expired']);
});
