import { afterEach, describe, expect } from 'vitest';
import type { Services } from '../../../../src/app/services.js';
import { CredentialKeyRing } from '../../../../src/bridge/mcp/index.js';
import { upstreamCredentials } from '../../../../src/bridge/mcp/tables.js';
import { toolCalls } from '../../../../src/calls/tables.js';
import { dbTest as test } from '../../../support/fixtures.js';
import { agent, resultText } from '../../../support/lifecycle.js';
import { addServer, allowMcp, callApproved, waitForState } from '../../../support/mcp.js';
import { type PerUserMcpServer, startPerUserMcpServer } from '../../../support/per-user-mcp-server.js';
import { startServices, TEST_CREDENTIALS_KEY } from '../../../support/services.js';
import { startTokenExchangeIdp, type TokenExchangeIdp } from '../../../support/token-exchange-idp.js';

const AUDIENCE = 'https://gh.example/mcp';
const open: Array<PerUserMcpServer | TokenExchangeIdp | Services> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await ('close' in thing ? thing.close() : thing.stop());
});

/** Services whose token-exchange client is the IdP's, and an upstream that takes only tokens the IdP minted for its audience. */
async function setUp(testDb: { database: Services['database'] }) {
  const idp = await startTokenExchangeIdp();
  open.push(idp);
  const upstream = await startPerUserMcpServer(async (token) => {
    if (token === 'listing-token') return true;
    const issued = await idp.introspect(token);
    return issued?.aud === AUDIENCE && issued.clientId === idp.client.id;
  });
  open.push(upstream);
  const services = await startServices(testDb.database, {
    gateway: { holdMs: 0 },
    credentials: {
      keys: CredentialKeyRing.parse(TEST_CREDENTIALS_KEY),
      exchange: {
        issuer: idp.issuer,
        tokenEndpoint: null,
        clientId: idp.client.id,
        clientSecret: idp.client.secret,
      },
    },
  });
  open.push(services);
  await addServer(services, {
    name: 'gh',
    transport: 'STREAMABLE_HTTP',
    url: upstream.url,
    headers: [{ name: 'Authorization', value: 'Bearer listing-token' }],
    userCredential: { mode: 'TOKEN_EXCHANGE', audience: AUDIENCE },
  });
  await waitForState(services, 'gh', 'CONNECTED');
  await allowMcp(services, 'mcp.gh.*');
  return { idp, upstream, services };
}

/** A host's tools/call as the MCP gateway makes it, for the agent principal. */
function gatewayCall(services: Services, name: string) {
  const ctx = {
    principal: agent,
    server: '',
    profileId: 'p1',
    session: null,
    runHeader: null,
    client: { name: 'host', version: '1' },
  };
  const held = {
    signal: new AbortController().signal,
    consoleUrl: (id: string) => `http://console/${id}`,
    advertised: 'gh_whoami',
    awaitTool: null,
  };
  return services.gateway.calls.call(ctx, name, {}, held);
}

describe('TOKEN_EXCHANGE: the user’s IdP token exchanged (RFC 8693) at a real oidc-provider', () => {
  test('a gateway tools/call exchanges the host’s token before the call is requested and held', async ({
    testDb,
  }) => {
    const { idp, services } = await setUp(testDb);
    services.callerIdpTokens.remember(agent, { token: await idp.userToken('u1'), expiresAt: null });
    const answer = await gatewayCall(services, 'mcp.gh.whoami');
    expect(answer.content[0]).toMatchObject({
      text: expect.stringMatching(/^This call is waiting for a person to approve it; it has not run yet\./),
    });
    expect(await services.upstreamCredentials.list()).toMatchObject([
      { userId: 'u1', serverName: 'gh', source: 'TOKEN_EXCHANGE' },
    ]);
  });

  test('an exchange the IdP refuses is the gateway call’s answer, and no call is requested', async ({
    testDb,
  }) => {
    const { services } = await setUp(testDb);
    services.callerIdpTokens.remember(agent, { token: 'forged', expiresAt: null });
    const answer = await gatewayCall(services, 'mcp.gh.whoami');
    expect(answer).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: `the IdP refused the token exchange for ${AUDIENCE} (invalid_grant: grant request is invalid)`,
        },
      ],
    });
    expect(await services.database.db.select().from(toolCalls)).toEqual([]);
  });

  test('before the call, the host’s token is exchanged for the upstream’s audience; the call carries the exchanged one, never the host’s', async ({
    testDb,
  }) => {
    const { idp, upstream, services } = await setUp(testDb);
    const hostToken = await idp.userToken('u1');
    services.callerIdpTokens.remember(agent, { token: hostToken, expiresAt: new Date(Date.now() + 600_000) });
    await services.upstreamCredentials.prepare(agent, 'mcp.gh.whoami');
    const [stored] = await services.database.db.select().from(upstreamCredentials);
    expect(stored).toMatchObject({ userId: 'u1', serverName: 'gh', source: 'TOKEN_EXCHANGE', keyId: 't1' });
    expect(stored!.expiresAt!.getTime()).toBeGreaterThan(Date.now());
    const call = await callApproved(services, 'mcp.gh.whoami');
    const sent = resultText(call).split(' | ')[0]!;
    expect(sent).toMatch(/^Bearer /);
    expect(sent).not.toContain(hostToken);
    expect(await idp.introspect(sent.slice(7))).toEqual({
      accountId: 'u1',
      aud: AUDIENCE,
      clientId: idp.client.id,
    });
    expect(upstream.authorizations).not.toContain(`Bearer ${hostToken}`);
  });

  test('a stored token with time left is reused: no second exchange', async ({ testDb }) => {
    const { idp, services } = await setUp(testDb);
    services.callerIdpTokens.remember(agent, { token: await idp.userToken('u1'), expiresAt: null });
    await services.upstreamCredentials.prepare(agent, 'mcp.gh.whoami');
    const [first] = await services.database.db.select().from(upstreamCredentials);
    await services.upstreamCredentials.prepare(agent, 'mcp.gh.whoami');
    const [second] = await services.database.db.select().from(upstreamCredentials);
    expect(second!.ciphertext.equals(first!.ciphertext)).toBe(true);
  });

  test('a call that runs after the exchanged token expired is told to sign in and call again', async ({
    testDb,
  }) => {
    const { idp, services } = await setUp(testDb);
    services.callerIdpTokens.remember(agent, { token: await idp.userToken('u1'), expiresAt: null });
    await services.upstreamCredentials.prepare(agent, 'mcp.gh.whoami');
    const expired = new Date(Date.now() - 1000);
    await services.database.db.update(upstreamCredentials).set({ expiresAt: expired });
    const call = await callApproved(services, 'mcp.gh.whoami');
    expect(call.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'upstream_credential_missing',
      message: `The MCP server gh acts for each user with their own credential, and u1 has none that can be used (the token exchanged for it expired at ${expired.toISOString()}), so mcp.gh.whoami did not run. It is exchanged from the user's IdP sign-in: the user calls through the MCP gateway signed in with the IdP (or calls connectUpstreamCredential(server: "gh") with an IdP token). Then call it again.`,
    });
  });

  test('the IdP refusing the subject token is a clear FAILED_PRECONDITION, and nothing is stored', async ({
    testDb,
  }) => {
    const { services } = await setUp(testDb);
    services.callerIdpTokens.remember(agent, { token: 'not-a-token-of-this-idp', expiresAt: null });
    await expect(services.upstreamCredentials.connect(agent, 'gh')).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: `the IdP refused the token exchange for ${AUDIENCE} (invalid_grant: grant request is invalid)`,
    });
    expect(await services.upstreamCredentials.list()).toEqual([]);
  });

  test('connecting without an IdP token says one is needed', async ({ testDb }) => {
    const { services } = await setUp(testDb);
    await expect(services.upstreamCredentials.connect(agent, 'gh')).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message:
        'gh takes a token exchanged from your IdP sign-in: call this with an IdP token, not an API token',
    });
  });
});
