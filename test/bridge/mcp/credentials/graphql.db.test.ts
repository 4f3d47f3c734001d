import { describe, expect } from 'vitest';
import { schema } from '../../../../src/graphql/schema.js';
import { dbTest as test } from '../../../support/fixtures.js';
import { addServer } from '../../../support/mcp.js';

const SET =
  'mutation($s: String!) { setUpstreamCredential(server: "gh", secret: $s) { userId server mode keyId setAt expiresAt } }';
const MINE = '{ myUpstreamCredentials { userId server mode } }';

async function storedServer(services: Parameters<typeof addServer>[0], name = 'gh') {
  await addServer(services, {
    name,
    transport: 'STREAMABLE_HTTP',
    url: 'http://127.0.0.1:9/mcp',
    userCredential: { mode: 'STORED' },
  });
}

describe('upstream credentials over GraphQL: write-only, each user their own', () => {
  test('no field of UpstreamCredential can carry the value', () => {
    const type = schema.getType('UpstreamCredential') as { getFields(): Record<string, unknown> };
    expect(Object.keys(type.getFields()).sort()).toEqual([
      'expiresAt',
      'keyId',
      'mode',
      'server',
      'setAt',
      'userId',
    ]);
  });

  test('a user sets their own and sees that it exists, never its value', async ({
    services,
    gql,
    tokens,
  }) => {
    await storedServer(services);
    const set = await gql(SET, { s: 'ghp_very-secret' }, tokens.AGENT);
    expect(set.errors).toBeUndefined();
    expect(set.data!.setUpstreamCredential).toMatchObject({
      userId: 'u1',
      server: 'gh',
      mode: 'STORED',
      keyId: 't1',
      expiresAt: null,
    });
    const mine = await gql(MINE, {}, tokens.AGENT);
    expect(mine.data!.myUpstreamCredentials).toEqual([{ userId: 'u1', server: 'gh', mode: 'STORED' }]);
    expect(JSON.stringify([set, mine])).not.toContain('ghp_very-secret');
  });

  test("another user's credential is invisible to them", async ({ services, gql, tokens }) => {
    await storedServer(services);
    await gql(SET, { s: 'u1-secret' }, tokens.AGENT);
    const other = await services.tokens.create({ name: 'bob-agent', role: 'AGENT', userId: 'bob' });
    expect((await gql(MINE, {}, other.secret)).data!.myUpstreamCredentials).toEqual([]);
    const removed = await gql('mutation { removeUpstreamCredential(server: "gh") }', {}, other.secret);
    expect(removed.data!.removeUpstreamCredential).toBe(false);
    expect((await gql(MINE, {}, tokens.AGENT)).data!.myUpstreamCredentials).toHaveLength(1);
  });

  test('an admin sees whose exist and when they were set, and cannot set one', async ({
    services,
    gql,
    tokens,
  }) => {
    await storedServer(services);
    await gql(SET, { s: 'u1-secret' }, tokens.AGENT);
    const listed = await gql('{ upstreamCredentials(server: "gh") { userId server mode setAt } }');
    expect(listed.data!.upstreamCredentials).toEqual([
      { userId: 'u1', server: 'gh', mode: 'STORED', setAt: expect.any(String) },
    ]);
    expect(JSON.stringify(listed)).not.toContain('u1-secret');
    const adminSet = await gql(SET, { s: 'x' }, tokens.ADMIN);
    expect(adminSet.errors!.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN']);
  });

  test('a server that takes no stored credential says what it takes', async ({ services, gql, tokens }) => {
    await addServer(services, { name: 'gh', transport: 'STREAMABLE_HTTP', url: 'http://127.0.0.1:9/mcp' });
    const res = await gql(SET, { s: 'x' }, tokens.AGENT);
    expect(res.errors![0]).toMatchObject({
      message: 'the MCP server gh takes no per-user credential',
      extensions: { code: 'FAILED_PRECONDITION' },
    });
  });

  test('a secret with a line break is refused before anything is stored', async ({
    services,
    gql,
    tokens,
  }) => {
    await storedServer(services);
    const res = await gql(SET, { s: 'a\r\nX-Evil: 1' }, tokens.AGENT);
    expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(await services.upstreamCredentials.list()).toEqual([]);
  });

  test('the server config shows how credentials are sent', async ({ services, gql }) => {
    await storedServer(services);
    const res = await gql('{ mcpServer(name: "gh") { userCredential { mode header scheme audience } } }');
    expect(res.data!.mcpServer.userCredential).toEqual({
      mode: 'STORED',
      header: 'Authorization',
      scheme: 'BEARER',
      audience: null,
    });
  });
});
