import type { Services } from '../../src/app/services.js';
import type { RunRow, ToolCallRow } from '../../src/calls/tables.js';
import type { Principal } from '../../src/core/auth.js';
import { dbTest } from './fixtures.js';
import { admin, allow } from './lifecycle.js';

/** A person's token bound to these users (`'*'` for every user), as a secret for GraphQL and as its principal. */
export async function person(
  services: Services,
  role: 'APPROVER' | 'VIEWER',
  users: string[] | '*',
): Promise<{ secret: string; principal: Principal }> {
  const { secret } = await services.tokens.create({
    name: `${role.toLowerCase()}-${users === '*' ? 'all' : users.join('-')}`,
    role,
    ...(users === '*' ? { allUsers: true } : { users }),
  });
  const authenticated = await services.tokens.authenticate(secret);
  if (!authenticated || !('principal' in authenticated)) throw new Error('token refused');
  return { secret, principal: authenticated.principal };
}

/** A run for this user on profile p1, created by an admin who names the user. */
export const runFor = (services: Services, userId: string) =>
  services.runs.create({ userId, profileId: 'p1' }, admin);

/** A call of `test.dangerous` (or another tool that asks) that waits for a decision. */
export const pendingCall = (services: Services, run: RunRow, key?: string, name = 'test.dangerous') =>
  services.calls.request({ runId: run.id, name, idempotencyKey: key ?? null }, admin);

/** The first n values of a subscription. */
export async function take<T>(iterator: AsyncIterator<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  while (out.length < n) {
    const next = await iterator.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

/** Runs for alice, bob and team-a (profile p1 may call every test tool), each with one call awaiting approval. */
export const usersTest = dbTest.extend<{
  runs: Record<'alice' | 'bob' | 'teamA', RunRow>;
  pending: Record<'alice' | 'bob' | 'teamA', ToolCallRow>;
}>({
  runs: async ({ services }, use) => {
    await allow(services);
    await use({
      alice: await runFor(services, 'alice'),
      bob: await runFor(services, 'bob'),
      teamA: await runFor(services, 'team-a'),
    });
  },
  pending: async ({ services, runs }, use) => {
    await use({
      alice: await pendingCall(services, runs.alice),
      bob: await pendingCall(services, runs.bob),
      teamA: await pendingCall(services, runs.teamA),
    });
  },
});
