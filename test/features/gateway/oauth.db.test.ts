import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { describe, expect, onTestFinished } from 'vitest';
import { createAppServer } from '../../../src/app/server.js';
import { runs as runTable } from '../../../src/calls/tables.js';
import { idpTest } from '../../support/idp-server.js';
import { admin, waitFor } from '../../support/lifecycle.js';
import { echoAsks, gatewayClient } from '../../support/mcp-gateway.js';
import { IDP_AUDIENCE } from '../../support/oidc-provider.js';

const REDIRECT = 'http://127.0.0.1:9/oauth/callback';

/** An MCP host's OAuth state, in memory: what the SDK's auth flow reads and saves. */
class HostOAuth implements OAuthClientProvider {
  authorizationUrl: URL | null = null;
  registered: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  private verifier = '';
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'gateway-oauth-test-host',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope: 'openid profile groups',
  };
  clientInformation = () => this.registered;
  saveClientInformation = (info: OAuthClientInformationMixed) => {
    this.registered = info;
  };
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => {
    this.saved = tokens;
  };
  redirectToAuthorization = (url: URL) => {
    this.authorizationUrl = url;
  };
  saveCodeVerifier = (verifier: string) => {
    this.verifier = verifier;
  };
  codeVerifier = () => this.verifier;
}

const test = idpTest.extend<{ mcpUrl: string }>({
  mcpUrl: async ({ services }, use) => {
    const server = createAppServer(services, {});
    const address = await server.listen(0, '127.0.0.1');
    await use(`http://127.0.0.1:${address.port}/mcp`);
    await server.close();
  },
});

function hostOn(mcpUrl: string, oauth: HostOAuth) {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    authProvider: oauth,
    requestInit: { headers: { 'x-profile-id': 'p1' } },
  });
  const client = new Client({ name: 'oauth-host', version: '1.0.0' });
  onTestFinished(() => client.close());
  return { client, transport };
}

describe('the gateway as an OAuth 2.1 protected resource', () => {
  test('its resource metadata names the IdP as the authorization server', async ({ idp, mcpUrl }) => {
    const base = mcpUrl.replace(/\/mcp$/, '');
    const metadata = await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toEqual({
      resource: mcpUrl,
      authorization_servers: [idp.issuer],
      bearer_methods_supported: ['header'],
      resource_name: 'Agent Tool System MCP gateway',
      resource_documentation: `${base}/console/`,
    });
  });

  test('without a token, the 401 names the IdP whose tokens are accepted beside API tokens', async ({
    idp,
    mcpUrl,
  }) => {
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      error: {
        code: -32001,
        message: `Unauthorized: send Authorization: Bearer <an AGENT API token, or a token of ${idp.issuer}>`,
      },
    });
  });

  test('a refused IdP token gets 401 with the reason and the WWW-Authenticate that starts the flow', async ({
    idp,
    mcpUrl,
  }) => {
    const token = await idp.signIn('carol', { resource: 'urn:another-api' });
    const response = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${mcpUrl.replace(/\/mcp$/, '')}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(await response.json()).toMatchObject({
      error: { code: -32001, message: 'Unauthorized: this token is for another audience' },
    });
  });

  test("an MCP host doing the SDK's authorization flow (registration, code + PKCE) signs its user in and calls /mcp with the IdP token", async ({
    idp,
    services,
    mcpUrl,
  }) => {
    await echoAsks(services);
    const oauth = new HostOAuth();
    const first = hostOn(mcpUrl, oauth);
    await expect(first.client.connect(first.transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(oauth.registered?.client_id).toEqual(expect.any(String));
    expect(oauth.authorizationUrl?.origin).toBe(idp.issuer);
    expect(oauth.authorizationUrl?.searchParams.get('resource')).toBe(mcpUrl);
    expect(oauth.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');

    const back = await idp.authorize(oauth.authorizationUrl!, 'carol');
    await first.transport.finishAuth(back.searchParams.get('code')!);
    expect(decodeJwt(oauth.saved!.access_token)).toMatchObject({
      iss: idp.issuer,
      aud: IDP_AUDIENCE,
      sub: 'carol',
    });

    const second = hostOn(mcpUrl, oauth);
    await second.client.connect(second.transport);
    const result = await second.client.callTool({ name: 'test__noop', arguments: {} });
    expect(result.isError ?? false).toBe(false);
    const runs = await services.database.db.select().from(runTable).where(eq(runTable.userId, 'carol'));
    expect(runs.map((run) => run.profileId)).toEqual(['p1']);
  });

  test("a call held for a person ends with an error when the host's IdP token expires", async ({
    idp,
    services,
    mcpUrl,
  }) => {
    await echoAsks(services);
    await services.policy.set(
      { layer: 'USER', scopeId: 'carol', toolPattern: 'test.echo', effect: 'ASK' },
      admin,
    );
    const token = await idp.signIn('carol');
    const client = await gatewayClient(mcpUrl, token);
    const answer = client
      .callTool({ name: 'test__echo', arguments: { text: 'held' } })
      .catch((e: Error) => e);
    await waitFor(async () => {
      const page = await services.calls.page({ status: 'AWAITING_APPROVAL', limit: 10, inverted: false });
      return page[0] ?? null;
    });
    await services.tokenWatch.check(new Date(decodeJwt(token).exp! * 1000 + 1));
    const outcome = await answer;
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toContain('token expired');
  });
});
