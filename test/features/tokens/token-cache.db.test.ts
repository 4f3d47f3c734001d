import { eq } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { DEFAULT_TOKEN_CACHE_MS } from '../../../src/features/tokens/service.js';
import { apiTokens } from '../../../src/features/tokens/tables.js';
import { heard, twoProcessTest as test } from '../../support/other-process.js';

/**
 * A token's row is reused for a few seconds between the requests of its secret; every change to
 * it ends that at once, on this process and (through the notice) on the others, and what the row
 * says about time (expiry, a rotated-out secret's overlap) is judged at each use.
 */
const later = (from: Date, ms: number) => new Date(from.getTime() + ms);
const viewer = { name: 'desk', role: 'VIEWER', users: ['u1'] } as const;

describe('token cache', () => {
  test('reuses the row it read: a row revoked without a notice still authenticates', async ({ services }) => {
    const { secret, token } = await services.tokens.create(viewer);
    const now = new Date();
    expect(await services.tokens.authenticate(secret, now)).toHaveProperty('principal.tokenId', token.id);
    await services.database.db.update(apiTokens).set({ revokedAt: now }).where(eq(apiTokens.id, token.id));
    expect(await services.tokens.authenticate(secret, now)).toHaveProperty('principal.tokenId', token.id);
  });

  test('reads the row again once it is older than the cache time', async ({ services }) => {
    const { secret, token } = await services.tokens.create(viewer);
    const now = new Date();
    await services.tokens.authenticate(secret, now);
    await services.database.db.update(apiTokens).set({ revokedAt: now }).where(eq(apiTokens.id, token.id));
    expect(await services.tokens.authenticate(secret, later(now, DEFAULT_TOKEN_CACHE_MS))).toEqual({
      refused: 'this token was revoked',
    });
  });

  test('a token revoked on this process is refused at its next request', async ({ services }) => {
    const { secret, token } = await services.tokens.create(viewer);
    await services.tokens.authenticate(secret);
    await services.tokens.revoke(token.id);
    expect(await services.tokens.authenticate(secret)).toEqual({ refused: 'this token was revoked' });
  });

  test('a token revoked on another process is refused here once it has heard of it', async ({
    services,
    other,
  }) => {
    const { secret, token } = await services.tokens.create(viewer);
    await services.tokens.authenticate(secret);
    const hearing = heard(services, 'tokens');
    await other.tokens.revoke(token.id);
    await hearing;
    expect(await services.tokens.authenticate(secret)).toEqual({ refused: 'this token was revoked' });
  });

  test('a kept row is refused once its expiry has passed', async ({ services }) => {
    const now = new Date();
    const expiresAt = later(now, 1_000);
    const { secret } = await services.tokens.create({ ...viewer, expiresAt });
    await services.tokens.authenticate(secret, now);
    expect(await services.tokens.authenticate(secret, expiresAt)).toEqual({
      refused: `this token expired at ${expiresAt.toISOString()}`,
    });
  });

  test("a rotated-out secret's kept row is refused once its overlap has ended", async ({ services }) => {
    const { secret, token } = await services.tokens.create(viewer);
    const now = new Date();
    await services.tokens.rotate(token.id, { overlapSeconds: 1 }, now);
    expect(await services.tokens.authenticate(secret, now)).toHaveProperty('principal.tokenId', token.id);
    expect(await services.tokens.authenticate(secret, later(now, 1_000))).toEqual({
      refused: 'this secret was replaced when the token was rotated',
    });
  });

  test('a rebinding on this process applies to the next request', async ({ services }) => {
    const { secret, token } = await services.tokens.create(viewer);
    await services.tokens.authenticate(secret);
    await services.tokens.bind(token.id, { users: ['alice'] });
    expect(await services.tokens.authenticate(secret)).toHaveProperty('principal.users', ['alice']);
  });
});
