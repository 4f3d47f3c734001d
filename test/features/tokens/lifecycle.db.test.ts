import { createHash } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { apiTokens } from '../../../src/features/tokens/tables.js';
import type { Yoga } from '../../../src/graphql/yoga.js';
import { dbTest as test } from '../../support/fixtures.js';
import { waitFor } from '../../support/lifecycle.js';

const TOKEN_FIELDS =
  'id name role userId users allUsers profiles planNodes legacyUnbound expiresAt lastUsedAt rotatedAt';
const ME = '{ me { name } }';

/** Changes a token's row as every writer does: with the notice that makes each process drop the row it keeps. */
async function changeRow(services: Services, id: string, values: Parameters<UpdateTokens['set']>[0]) {
  await services.invalidations.transaction(async (tx) => {
    await tx.update(apiTokens).set(values).where(eq(apiTokens.id, id));
    await services.invalidations.notify(tx, 'tokens');
  });
}
type UpdateTokens = ReturnType<Services['database']['db']['update']>;

const refusal = (res: { errors?: Array<{ message: string; extensions?: { code?: string } }> }) =>
  res.errors?.map((e) => ({ code: e.extensions?.code, message: e.message }));

describe('createApiToken', () => {
  test('stores the bindings and expiry it is given', async ({ gql }) => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const res = await gql(
      `mutation($e: DateTime) { createApiToken(input: { name: "bot", role: AGENT, userId: "alice", profiles: ["writer-*"], planNodes: ["draft"], expiresAt: $e }) { apiToken { ${TOKEN_FIELDS} } } }`,
      { e: expiresAt },
    );
    expect(res.data!.createApiToken.apiToken).toMatchObject({
      name: 'bot',
      role: 'AGENT',
      userId: 'alice',
      users: [],
      allUsers: false,
      profiles: ['writer-*'],
      planNodes: ['draft'],
      legacyUnbound: false,
      expiresAt,
      lastUsedAt: null,
      rotatedAt: null,
    });
  });

  test('an APPROVER may be granted every user', async ({ gql }) => {
    const res = await gql(
      `mutation { createApiToken(input: { name: "desk", role: APPROVER, allUsers: true }) { apiToken { users allUsers } } }`,
    );
    expect(res.data!.createApiToken.apiToken).toEqual({ users: [], allUsers: true });
  });

  test('an expiry in the past is BAD_USER_INPUT', async ({ gql }) => {
    const res = await gql(
      'mutation { createApiToken(input: { name: "old", role: ADMIN, expiresAt: "2000-01-01T00:00:00Z" }) { token } }',
    );
    expect(refusal(res)).toEqual([
      { code: 'BAD_USER_INPUT', message: 'input.expiresAt: must be in the future' },
    ]);
  });
});

describe('a token that was sent and refused', () => {
  const meWith = async (yoga: Yoga, authorization: string | null) => {
    const response = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(authorization === null ? {} : { authorization }),
      },
      body: JSON.stringify({ query: ME }),
    });
    return (await response.json()) as { errors?: Array<{ message: string; extensions?: { code?: string } }> };
  };

  test('an unknown token says the server does not know it, not "send a token"', async ({ yoga }) => {
    expect(refusal(await meWith(yoga, 'Bearer not-a-token'))).toEqual([
      {
        code: 'UNAUTHENTICATED',
        message:
          'authentication failed: this token is not known to this server (mistyped, or a secret rotated out)',
      },
    ]);
  });

  test('a revoked token says it was revoked', async ({ yoga, services }) => {
    const { secret, token } = await services.tokens.create({ name: 'gone', role: 'VIEWER', users: ['u1'] });
    await services.tokens.revoke(token.id);
    expect(refusal(await meWith(yoga, `Bearer ${secret}`))).toEqual([
      { code: 'UNAUTHENTICATED', message: 'authentication failed: this token was revoked' },
    ]);
  });

  test('an Authorization header that is not "Bearer <token>" says so', async ({ yoga }) => {
    expect(refusal(await meWith(yoga, 'Basic dXNlcjpwYXNz'))).toEqual([
      {
        code: 'UNAUTHENTICATED',
        message: 'authentication failed: the Authorization header must be "Bearer <token>"',
      },
    ]);
  });

  test('no Authorization at all asks for one', async ({ yoga }) => {
    expect(refusal(await meWith(yoga, null))).toEqual([
      { code: 'UNAUTHENTICATED', message: 'authentication required: send Authorization: Bearer <token>' },
    ]);
  });
});

describe('expiry', () => {
  test('an expired token is refused with the time it expired', async ({ gql, services }) => {
    const { secret, token } = await services.tokens.create({
      name: 'brief',
      role: 'VIEWER',
      users: ['u1'],
      expiresAt: new Date(Date.now() + 60_000),
    });
    expect((await gql(ME, {}, secret)).data).toEqual({ me: { name: 'brief' } });
    const past = new Date(Date.now() - 1_000);
    await changeRow(services, token.id, { expiresAt: past });
    expect(refusal(await gql(ME, {}, secret))).toEqual([
      {
        code: 'UNAUTHENTICATED',
        message: `authentication failed: this token expired at ${past.toISOString()}`,
      },
    ]);
  });
});

describe('bindApiToken', () => {
  /** A token as it was stored before bindings existed: an AGENT with no user. */
  async function legacyAgent(services: Services) {
    const secret = 'ats_legacy-agent-secret-0123456789';
    const [row] = await services.database.db
      .insert(apiTokens)
      .values({
        name: 'old-bot',
        role: 'AGENT',
        tokenHash: createHash('sha256').update(secret).digest('hex'),
      })
      .returning();
    return { secret, id: row!.id };
  }

  test('a token from before bindings is refused until an admin binds it', async ({ gql, services }) => {
    const { secret } = await legacyAgent(services);
    expect(refusal(await gql(ME, {}, secret))).toEqual([
      {
        code: 'UNAUTHENTICATED',
        message:
          'authentication failed: this AGENT token is bound to no user: an admin must bind it (token bind) or mark it legacy-unbound',
      },
    ]);
  });

  test('binding it to a user and profiles makes it work, bound', async ({ gql, services }) => {
    const { secret, id } = await legacyAgent(services);
    const res = await gql(
      `mutation { bindApiToken(id: "${id}", input: { userId: "alice", profiles: ["p1"] }) { userId profiles legacyUnbound } }`,
    );
    expect(res.data!.bindApiToken).toEqual({ userId: 'alice', profiles: ['p1'], legacyUnbound: false });
    expect((await gql(ME, {}, secret)).data).toEqual({ me: { name: 'old-bot' } });
  });

  test('marking it legacy-unbound makes it work as before, unbound', async ({ gql, services }) => {
    const { secret, id } = await legacyAgent(services);
    const res = await gql(
      `mutation { bindApiToken(id: "${id}", input: { legacyUnbound: true }) { userId legacyUnbound } }`,
    );
    expect(res.data!.bindApiToken).toEqual({ userId: null, legacyUnbound: true });
    expect((await gql(ME, {}, secret)).data).toEqual({ me: { name: 'old-bot' } });
  });

  test('binding a legacy-unbound token clears the mark', async ({ services }) => {
    const { id } = await legacyAgent(services);
    await services.tokens.bind(id, { legacyUnbound: true });
    const bound = await services.tokens.bind(id, { userId: 'bob' });
    expect(bound).toMatchObject({ userId: 'bob', legacyUnbound: false });
  });

  test('fields left out stay; allUsers replaces the named users', async ({ services }) => {
    const { token } = await services.tokens.create({ name: 'desk', role: 'APPROVER', users: ['alice'] });
    expect(await services.tokens.bind(token.id, { allUsers: true })).toMatchObject({
      users: [],
      allUsers: true,
    });
    expect(await services.tokens.bind(token.id, { users: ['bob', 'carol-*'] })).toMatchObject({
      users: ['bob', 'carol-*'],
      allUsers: false,
    });
  });

  test('the rules of creation hold: a VIEWER acts for users, not one userId', async ({ gql, services }) => {
    const { token } = await services.tokens.create({ name: 'wall', role: 'VIEWER', users: ['alice'] });
    const res = await gql(`mutation { bindApiToken(id: "${token.id}", input: { userId: "alice" }) { id } }`);
    expect(refusal(res)).toEqual([
      {
        code: 'BAD_USER_INPUT',
        message: 'input.userId: only AGENT tokens act for one user; APPROVER and VIEWER tokens name `users`',
      },
    ]);
  });

  test("clearing an AGENT token's user is BAD_USER_INPUT", async ({ services }) => {
    const { token } = await services.tokens.create({ name: 'bot', role: 'AGENT', userId: 'alice' });
    await expect(services.tokens.bind(token.id, { userId: null })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      message: 'input.userId: an AGENT token must name the one user its runs act for',
    });
  });

  test('an unknown token is NOT_FOUND; a revoked one is a CONFLICT', async ({ gql, services }) => {
    const unknown = await gql(
      'mutation { bindApiToken(id: "00000000-0000-4000-8000-000000000000", input: { legacyUnbound: true }) { id } }',
    );
    expect(refusal(unknown)).toEqual([
      { code: 'NOT_FOUND', message: 'no API token 00000000-0000-4000-8000-000000000000' },
    ]);
    const { token } = await services.tokens.create({ name: 'gone', role: 'VIEWER', users: ['u1'] });
    await services.tokens.revoke(token.id);
    const revoked = await gql(
      `mutation { bindApiToken(id: "${token.id}", input: { users: ["bob"] }) { id } }`,
    );
    expect(refusal(revoked)).toEqual([
      { code: 'CONFLICT', message: `API token ${token.id} is revoked; create a new one` },
    ]);
  });
});

describe('rotateApiToken', () => {
  const ROTATE = (id: string, overlap?: number) =>
    `mutation { rotateApiToken(id: "${id}"${overlap === undefined ? '' : `, overlapSeconds: ${overlap}`}) { token apiToken { id rotatedAt } } }`;

  test('gives the same token a new secret; both work during the overlap', async ({ gql, services }) => {
    const { secret: old, token } = await services.tokens.create({
      name: 'ci',
      role: 'VIEWER',
      users: ['u1'],
    });
    const res = await gql(ROTATE(token.id));
    const { token: fresh, apiToken } = res.data!.rotateApiToken;
    expect(fresh).toMatch(/^ats_[A-Za-z0-9_-]{43}$/);
    expect(fresh).not.toBe(old);
    expect(apiToken.id).toBe(token.id);
    expect(apiToken.rotatedAt).not.toBeNull();
    const stored = (await services.tokens.get(token.id))!;
    expect(stored.previousValidUntil!.getTime() - stored.rotatedAt!.getTime()).toBe(300_000);
    expect((await gql(ME, {}, old)).data).toEqual({ me: { name: 'ci' } });
    expect((await gql(ME, {}, fresh)).data).toEqual({ me: { name: 'ci' } });
  });

  test('after the overlap the old secret is refused and the new one works', async ({ gql, services }) => {
    const { secret: old, token } = await services.tokens.create({
      name: 'ci',
      role: 'VIEWER',
      users: ['u1'],
    });
    const { secret: fresh } = await services.tokens.rotate(token.id, { overlapSeconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(refusal(await gql(ME, {}, old))).toEqual([
      {
        code: 'UNAUTHENTICATED',
        message: 'authentication failed: this secret was replaced when the token was rotated',
      },
    ]);
    expect((await gql(ME, {}, fresh)).data).toEqual({ me: { name: 'ci' } });
  });

  test('rotating again ends the first secret at once', async ({ gql, services }) => {
    const { secret: first, token } = await services.tokens.create({
      name: 'ci',
      role: 'VIEWER',
      users: ['u1'],
    });
    await services.tokens.rotate(token.id, { overlapSeconds: 600 });
    await services.tokens.rotate(token.id, { overlapSeconds: 600 });
    expect(refusal(await gql(ME, {}, first))).toEqual([
      {
        code: 'UNAUTHENTICATED',
        message:
          'authentication failed: this token is not known to this server (mistyped, or a secret rotated out)',
      },
    ]);
  });

  test('an overlap over an hour is BAD_USER_INPUT', async ({ gql, services }) => {
    const { token } = await services.tokens.create({ name: 'ci', role: 'VIEWER', users: ['u1'] });
    const res = await gql(ROTATE(token.id, 3601));
    expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    expect(res.errors![0]!.message).toBe('overlapSeconds: Too big: expected number to be <=3600');
  });

  test('a revoked token is a CONFLICT', async ({ gql, services }) => {
    const { token } = await services.tokens.create({ name: 'ci', role: 'VIEWER', users: ['u1'] });
    await services.tokens.revoke(token.id);
    expect(refusal(await gql(ROTATE(token.id)))).toEqual([
      { code: 'CONFLICT', message: `API token ${token.id} is revoked; create a new one` },
    ]);
  });
});

describe('lastUsedAt', () => {
  const lastUsed = async (
    services: { tokens: { get(id: string): Promise<{ lastUsedAt: Date | null } | null> } },
    id: string,
  ) => (await services.tokens.get(id))!.lastUsedAt;

  test('is null until the token is used, then the time of that use', async ({ gql, services }) => {
    const { secret, token } = await services.tokens.create({ name: 'ci', role: 'VIEWER', users: ['u1'] });
    expect(await lastUsed(services, token.id)).toBeNull();
    const before = Date.now();
    await gql(ME, {}, secret);
    const used = await waitFor(() => lastUsed(services, token.id));
    expect(used.getTime()).toBeGreaterThanOrEqual(before - 1_000);
  });

  test('is written at most once a minute', async ({ gql, services }) => {
    const { secret, token } = await services.tokens.create({ name: 'ci', role: 'VIEWER', users: ['u1'] });
    await gql(ME, {}, secret);
    const first = await waitFor(() => lastUsed(services, token.id));
    await gql(ME, {}, secret);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await lastUsed(services, token.id)).toEqual(first);

    await changeRow(services, token.id, { lastUsedAt: sql`now() - interval '2 minutes'` });
    const stale = await lastUsed(services, token.id);
    await gql(ME, {}, secret);
    const renewed = await waitFor(async () => {
      const at = await lastUsed(services, token.id);
      return at && at.getTime() !== stale!.getTime() ? at : null;
    });
    expect(renewed.getTime()).toBeGreaterThan(stale!.getTime());
  });
});
