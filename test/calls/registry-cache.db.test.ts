import { eq } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { tools } from '../../src/calls/tables.js';
import type { Principal } from '../../src/core/auth.js';
import { admin } from '../support/lifecycle.js';
import { heard, twoProcessTest as test } from '../support/other-process.js';

const dice: Principal = { ...admin, name: 'dice', role: 'EXTENSION', extensionId: 'dice' };

/** The registry each process keeps in memory: every call request and dispatch reads its tool there. */
describe('registry cache', () => {
  test('answers from memory once read: a row changed without a notice is not seen', async ({ services }) => {
    expect((await services.registry.get('test.noop'))?.enabled).toBe(true);
    await services.database.db.update(tools).set({ enabled: false }).where(eq(tools.name, 'test.noop'));
    expect((await services.registry.get('test.noop'))?.enabled).toBe(true);
  });

  test('a tool disabled on this process is disabled at its next read', async ({ services }) => {
    expect((await services.registry.get('test.noop'))?.enabled).toBe(true);
    await services.registry.setEnabled('test.noop', false);
    expect((await services.registry.get('test.noop'))?.enabled).toBe(false);
  });

  test('a tool updated on another process is read updated here once it has heard of it', async ({
    services,
    other,
  }) => {
    expect((await services.registry.get('test.noop'))?.permission).toBe('ALWAYS_ALLOW');
    const hearing = heard(services, 'registry');
    await other.registry.update('test.noop', { permission: 'APPROVAL_REQUIRED' });
    await hearing;
    expect((await services.registry.get('test.noop'))?.permission).toBe('APPROVAL_REQUIRED');
  });

  test("an extension's tools registered on another process are known here once it has heard of it", async ({
    services,
    other,
  }) => {
    expect(await services.registry.get('ext.dice.roll')).toBeNull();
    const hearing = heard(services, 'registry');
    await other.extensions.tools.register(
      { tools: [{ name: 'roll', description: 'Rolls dice.', inputSchema: { type: 'object' } }] },
      dice,
    );
    await hearing;
    expect(
      (await services.registry.all()).filter((spec) => spec.source === 'EXTENSION').map((s) => s.name),
    ).toEqual(['ext.dice.roll']);
  });
});
