import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { runTest as test } from '../../support/fixtures.js';
import { admin, agent, approver } from '../../support/lifecycle.js';

const echo = (services: Services, runId: string, text: string) =>
  services.calls.request({ runId, name: 'test.echo', arguments: { text } }, agent);

const askWithQuorum = (services: Services, approvals: number) =>
  services.policy.set(
    { layer: 'USER', scopeId: 'u1', toolPattern: 'test.echo', effect: 'ASK', budget: { approvals } },
    admin,
  );

describe('grants and quorum', () => {
  test('a call that needs two approvals grants nothing beyond itself: the completing approval with RUN is BAD_USER_INPUT', async ({
    services,
    run,
  }) => {
    await askWithQuorum(services, 2);
    const call = await echo(services, run.id, 'one');
    await services.calls.approve(call.id, {}, approver);
    await expect(services.calls.approve(call.id, { scope: 'RUN' }, admin)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      message: `call ${call.id} needs 2 approvals, so one person's approval grants nothing beyond it: use scope ONCE`,
    });
    const now = (await services.calls.get(call.id))!;
    expect(now.status).toBe('AWAITING_APPROVAL');
    expect(now.approvals).toHaveLength(1);
    expect(await services.grants.list({ includeRevoked: true }, admin)).toEqual([]);
  });

  test('a RUN grant never stands in for a quorum a later rule asks for', async ({ services, run }) => {
    await askWithQuorum(services, 1);
    const first = await echo(services, run.id, 'one');
    await services.calls.approve(first.id, { scope: 'RUN' }, approver);
    expect((await echo(services, run.id, 'two')).status).toBe('COMPLETED');
    await askWithQuorum(services, 2);
    const next = await echo(services, run.id, 'three');
    expect(next.status).toBe('AWAITING_APPROVAL');
    expect(next.approvalsRequired).toBe(2);
  });
});
