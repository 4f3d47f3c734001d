import { describe, expect } from 'vitest';
import { tokenCommands } from '../../../src/features/tokens/index.js';
import { runCommand } from '../../support/cli.js';
import { dbTest as test } from '../../support/fixtures.js';

const cli = (services: Parameters<typeof runCommand>[1], words: string[], values = {}) =>
  runCommand(tokenCommands as never, services, words, values);

describe('token create', () => {
  test('binds an approver to users and sets its expiry from --expires', async ({ services }) => {
    const before = Date.now();
    const { code, out } = await cli(services, ['token', 'create'], {
      role: 'approver',
      name: 'desk',
      users: 'alice, bob-*',
      expires: '30d',
    });
    expect(code).toBe(0);
    const [token] = (await services.tokens.list()).filter((t) => t.name === 'desk');
    expect(out).toEqual([`created approver token desk (${token!.id})`, expect.stringMatching(/^ats_/)]);
    expect(token).toMatchObject({ users: ['alice', 'bob-*'], allUsers: false });
    const days = (token!.expiresAt!.getTime() - before) / 86_400_000;
    expect(days).toBeGreaterThanOrEqual(30 - 1 / 1440);
    expect(days).toBeLessThan(30 + 1 / 1440);
  });

  test('binds an agent to its user, profiles and plan nodes', async ({ services }) => {
    await cli(services, ['token', 'create'], {
      role: 'agent',
      name: 'bot',
      'user-id': 'alice',
      profiles: 'writer,critic-*',
      'plan-nodes': 'draft',
    });
    const [token] = (await services.tokens.list()).filter((t) => t.name === 'bot');
    expect(token).toMatchObject({ userId: 'alice', profiles: ['writer', 'critic-*'], planNodes: ['draft'] });
  });
});

describe('token list', () => {
  test('shows each token with its binding, expiry and last use', async ({ services }) => {
    const { token } = await services.tokens.create({
      name: 'desk',
      role: 'APPROVER',
      allUsers: true,
      expiresAt: new Date('2099-01-01T00:00:00Z'),
    });
    const { out } = await cli(services, ['token', 'list']);
    expect(out.filter((line) => line.includes('desk'))).toEqual([
      `${token.id}  approver   desk  users=*  expires 2099-01-01T00:00:00.000Z  never used`,
    ]);
  });
});

describe('token bind', () => {
  test('--legacy-unbound marks a token from before bindings', async ({ services }) => {
    const { token } = await services.tokens.create({ name: 'wall', role: 'VIEWER', users: ['u1'] });
    const { code, out } = await cli(services, ['token', 'bind', token.id], { 'legacy-unbound': true });
    expect(code).toBe(0);
    expect(out).toEqual([`${token.id}  viewer     wall  users=u1 legacy-unbound  active  never used`]);
  });

  test('--all-users grants every user', async ({ services }) => {
    const { token } = await services.tokens.create({ name: 'wall', role: 'VIEWER', users: ['u1'] });
    await cli(services, ['token', 'bind', token.id], { 'all-users': true });
    expect(await services.tokens.get(token.id)).toMatchObject({ users: [], allUsers: true });
  });

  test('without anything to bind is a usage error', async ({ services }) => {
    const { token } = await services.tokens.create({ name: 'wall', role: 'VIEWER', users: ['u1'] });
    await expect(cli(services, ['token', 'bind', token.id])).rejects.toThrow(
      'say what to bind: --user-id, --users, --all-users, --profiles, --plan-nodes or --legacy-unbound',
    );
  });
});

describe('token rotate', () => {
  test('prints the new secret and until when the old one works', async ({ services }) => {
    const { token } = await services.tokens.create({ name: 'ci', role: 'VIEWER', users: ['u1'] });
    const { code, out } = await cli(services, ['token', 'rotate', token.id], { overlap: '10m' });
    expect(code).toBe(0);
    const stored = (await services.tokens.get(token.id))!;
    expect(stored.previousValidUntil!.getTime() - stored.rotatedAt!.getTime()).toBe(600_000);
    expect(out).toEqual([
      `rotated viewer token ci (${token.id}); the old secret works until ${stored.previousValidUntil!.toISOString()}`,
      expect.stringMatching(/^ats_/),
    ]);
    expect(await services.tokens.authenticate(out[1]!)).toMatchObject({ principal: { tokenId: token.id } });
  });
});
