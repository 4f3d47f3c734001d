import { afterEach, describe, expect } from 'vitest';
import type { Services } from '../../../../src/app/services.js';
import { dbTest as test } from '../../../support/fixtures.js';
import { agent, resultText } from '../../../support/lifecycle.js';
import { addServer, allowMcp, callApproved, waitForState } from '../../../support/mcp.js';
import { type PerUserMcpServer, startPerUserMcpServer } from '../../../support/per-user-mcp-server.js';

const servers: PerUserMcpServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** Listed with the admin's service token; each user's calls must carry their own. */
async function perUserServer(
  services: Services,
  userCredential: Record<string, unknown> = { mode: 'STORED' },
) {
  const upstream = await startPerUserMcpServer(['listing-token', 'u1-own-token']);
  servers.push(upstream);
  await addServer(services, {
    name: 'gh',
    transport: 'STREAMABLE_HTTP',
    url: upstream.url,
    headers: [{ name: 'Authorization', value: 'Bearer listing-token' }],
    userCredential,
  });
  await waitForState(services, 'gh', 'CONNECTED');
  await allowMcp(services, 'mcp.gh.*');
  return upstream;
}

describe("an upstream MCP server called with each user's own credential", () => {
  test("the call carries the run's user's stored credential in place of the admin's header", async ({
    services,
  }) => {
    await perUserServer(services);
    await services.upstreamCredentials.set(agent, 'gh', 'u1-own-token');
    const call = await callApproved(services, 'mcp.gh.whoami');
    expect(call.status).toBe('COMPLETED');
    expect(resultText(call)).toBe('Bearer u1-own-token | undefined');
  });

  test('RAW in another header: the credential is that header’s whole value', async ({ services }) => {
    await perUserServer(services, { mode: 'STORED', header: 'X-User-Token', scheme: 'RAW' });
    await services.upstreamCredentials.set(agent, 'gh', 'u1-own-token');
    const call = await callApproved(services, 'mcp.gh.whoami');
    expect(resultText(call)).toBe('Bearer listing-token | u1-own-token');
  });

  test('a call without the user’s credential is a recoverable error saying how to connect it', async ({
    services,
  }) => {
    const upstream = await perUserServer(services);
    await services.upstreamCredentials.setFor('u2', 'gh', 'u1-own-token');
    const seen = upstream.authorizations.length;
    const call = await callApproved(services, 'mcp.gh.whoami');
    expect(call.status).toBe('FAILED');
    expect(call.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'upstream_credential_missing',
      message:
        'The MCP server gh acts for each user with their own credential, and u1 has none that can be used (none is set), so mcp.gh.whoami did not run. The user sets it once with the GraphQL mutation setUpstreamCredential(server: "gh", secret: …) or the CLI `mcp credential set gh`. Then call it again.',
    });
    expect(upstream.authorizations.length).toBe(seen);
  });

  test('a credential the upstream refuses is a recoverable error asking for a new one', async ({
    services,
  }) => {
    await perUserServer(services);
    await services.upstreamCredentials.set(agent, 'gh', 'revoked-token');
    const call = await callApproved(services, 'mcp.gh.whoami');
    expect(call.error).toMatchObject({ kind: 'RECOVERABLE', code: 'upstream_credential_rejected' });
    expect(call.error!.message).toBe(
      'The MCP server gh refused the credential of u1, so mcp.gh.whoami did not run. The user sets it once with the GraphQL mutation setUpstreamCredential(server: "gh", secret: …) or the CLI `mcp credential set gh`. Then call it again.',
    );
  });

  test('a per-user credential is refused for a STDIO server', async ({ services }) => {
    await expect(
      addServer(services, {
        name: 'local',
        transport: 'STDIO',
        command: 'x',
        userCredential: { mode: 'STORED' },
      }),
    ).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      message: 'userCredential: is only for STREAMABLE_HTTP',
    });
  });
});
