import { eq } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import type { Services } from '../../../../src/app/services.js';
import { CredentialKeyRing, UpstreamCredentials } from '../../../../src/bridge/mcp/index.js';
import { upstreamCredentials } from '../../../../src/bridge/mcp/tables.js';
import { dbTest as test } from '../../../support/fixtures.js';
import { agent } from '../../../support/lifecycle.js';
import { addServer } from '../../../support/mcp.js';

const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');
const storedServer = {
  name: 'gh',
  transport: 'STREAMABLE_HTTP',
  url: 'http://127.0.0.1:9/mcp',
  userCredential: { mode: 'STORED' },
};

function credentialsWith(services: Services, keys: string) {
  return new UpstreamCredentials(services.database.db, CredentialKeyRing.parse(keys), null);
}

const config = {
  mode: 'STORED',
  header: 'Authorization',
  scheme: 'BEARER',
  audience: null,
  scope: null,
} as const;

describe('per-user upstream credentials at rest', () => {
  test('the stored bytes are AES-GCM ciphertext, not the secret, and decrypt to it for its user only', async ({
    services,
  }) => {
    await addServer(services, storedServer);
    await services.upstreamCredentials.set(agent, 'gh', 'ghp_secret-value-123');
    const [row] = await services.database.db.select().from(upstreamCredentials);
    expect(row!.keyId).toBe('t1');
    expect(row!.ciphertext.includes(Buffer.from('ghp_secret'))).toBe(false);
    expect(row!.ciphertext.length).toBe('ghp_secret-value-123'.length);
    expect(row!.iv.length).toBe(12);
    expect(row!.authTag.length).toBe(16);
    expect(await services.upstreamCredentials.lookup('u1', 'gh', config)).toEqual({
      ok: true,
      value: 'ghp_secret-value-123',
    });
    expect(await services.upstreamCredentials.lookup('u2', 'gh', config)).toEqual({
      ok: false,
      reason: 'none is set',
    });
  });

  test('a row moved to another user does not decrypt: the ciphertext is bound to its user and server', async ({
    services,
  }) => {
    await addServer(services, storedServer);
    await services.upstreamCredentials.set(agent, 'gh', 'mine');
    await services.database.db.update(upstreamCredentials).set({ userId: 'mallory' });
    expect(await services.upstreamCredentials.lookup('mallory', 'gh', config)).toEqual({
      ok: false,
      unreadable: true,
      reason:
        'the credential does not decrypt with key t1: CREDENTIALS_KEY holds a different key under that id, or the row was altered',
    });
  });

  test('a key ring without the key id, or with another key under it, fails clearly', async ({ services }) => {
    await addServer(services, storedServer);
    await services.upstreamCredentials.set(agent, 'gh', 'mine');
    expect(await credentialsWith(services, `t2:${key(1)}`).lookup('u1', 'gh', config)).toEqual({
      ok: false,
      unreadable: true,
      reason: 'the credential was encrypted with key t1, which CREDENTIALS_KEY does not hold',
    });
    expect(await credentialsWith(services, `t1:${key(9)}`).lookup('u1', 'gh', config)).toMatchObject({
      ok: false,
      reason:
        'the credential does not decrypt with key t1: CREDENTIALS_KEY holds a different key under that id, or the row was altered',
    });
  });

  test('rotation: a new first key encrypts, the old still decrypts, reencrypt moves every row to the new key', async ({
    services,
  }) => {
    await addServer(services, storedServer);
    const before = await services.upstreamCredentials.set(agent, 'gh', 'rotate-me');
    const rotated = credentialsWith(services, `t2:${key(2)},t1:${Buffer.alloc(32, 7).toString('base64')}`);
    expect(await rotated.lookup('u1', 'gh', config)).toEqual({ ok: true, value: 'rotate-me' });
    await addServer(services, { ...storedServer, name: 'jira' });
    const fresh = await rotated.setFor('u1', 'jira', 'new-one');
    expect([before.keyId, fresh.keyId]).toEqual(['t1', 't2']);
    expect(await rotated.reencrypt()).toBe(1);
    expect((await rotated.list()).map((c) => [c.serverName, c.keyId])).toEqual([
      ['gh', 't2'],
      ['jira', 't2'],
    ]);
    const newOnly = credentialsWith(services, `t2:${key(2)}`);
    expect(await newOnly.lookup('u1', 'gh', config)).toEqual({ ok: true, value: 'rotate-me' });
    expect(await rotated.reencrypt()).toBe(0);
  });

  test('without CREDENTIALS_KEY nothing is stored and the user is told why', async ({ services }) => {
    await addServer(services, storedServer);
    await expect(credentialsWith(services, '').setFor('u1', 'gh', 'x')).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: 'CREDENTIALS_KEY is not set, so no credential can be stored',
    });
    expect(await services.database.db.select().from(upstreamCredentials)).toEqual([]);
  });

  test('removing the server removes its credentials', async ({ services }) => {
    await addServer(services, storedServer);
    await services.upstreamCredentials.set(agent, 'gh', 'x');
    await services.mcpServers.remove('gh', 'admin:root');
    expect(
      await services.database.db
        .select()
        .from(upstreamCredentials)
        .where(eq(upstreamCredentials.userId, 'u1')),
    ).toEqual([]);
  });
});

describe('CREDENTIALS_KEY', () => {
  test('a malformed entry is refused naming it, never its key material', () => {
    expect(() => CredentialKeyRing.parse('nokey')).toThrow(
      'entry 1 must be <id>:<base64 key> with an id of 1-32 characters of A-Z a-z 0-9 _ -',
    );
    expect(() => CredentialKeyRing.parse(`k1:${Buffer.alloc(16).toString('base64')}`)).toThrow(
      'key k1 must be 32 bytes in base64 (openssl rand -base64 32), not 16',
    );
    expect(() => CredentialKeyRing.parse(`k1:${key(1)},k1:${key(2)}`)).toThrow('key k1 is given twice');
  });
});
