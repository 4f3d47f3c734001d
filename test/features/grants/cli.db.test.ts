import { describe, expect } from 'vitest';
import { grantCommands } from '../../../src/features/grants/cli.js';
import { runCommand } from '../../support/cli.js';
import { runTest as test } from '../../support/fixtures.js';
import { admin, approver } from '../../support/lifecycle.js';
import { pendingCall } from '../../support/people.js';

describe('grants commands', () => {
  test('grants list shows each grant with who made it and when; grants revoke ends it', async ({
    services,
    run,
  }) => {
    const call = await pendingCall(services, run);
    await services.calls.approve(call.id, { scope: 'RUN' }, approver);
    const [grant] = await services.grants.list({}, admin);
    const at = grant!.createdAt.toISOString();

    const listed = await runCommand(grantCommands, services, ['grants', 'list']);
    expect(listed.out).toEqual([
      `${grant!.id}  run     test.dangerous  run=${run.id}  by approver:alice ${at}  active`,
    ]);

    const revoked = await runCommand(grantCommands, services, ['grants', 'revoke', grant!.id]);
    expect(revoked.out).toEqual([`revoked grant ${grant!.id} (RUN test.dangerous)`]);
    expect((await runCommand(grantCommands, services, ['grants', 'list'])).out).toEqual(['no grants']);
    const all = await runCommand(grantCommands, services, ['grants', 'list'], { 'include-revoked': true });
    expect(all.out[0]).toMatch(/ {2}revoked \S+ by admin:cli$/);
  });
});
