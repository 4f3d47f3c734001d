import { describe, expect } from 'vitest';
import { runDefaultsCommands } from '../../src/calls/cli.js';
import type { Principal } from '../../src/core/auth.js';
import { runCommand } from '../support/cli.js';
import { dbTest as test } from '../support/fixtures.js';
import { admin } from '../support/lifecycle.js';

const SET = `mutation($input: ProfileRunDefaultsInput!) {
  setProfileRunDefaults(input: $input) { profileId deniedToolStrategy maxCalls maxCallsPerTool updatedBy } }`;
const CREATE = `mutation($input: CreateRunInput!) {
  createRun(input: $input) { id deniedToolStrategy maxCalls maxCallsPerTool createdByTokenId } }`;

const host: Principal = {
  ...admin,
  tokenId: '00000000-0000-4000-8000-000000000009',
  name: 'tavern',
  role: 'HOST',
};

describe('profile run defaults', () => {
  test('an admin sets them; people and hosts read them, agents and extensions may not', async ({
    gql,
    tokens,
  }) => {
    const set = await gql(SET, { input: { profileId: 'p1', deniedToolStrategy: 'FAIL_RUN', maxCalls: 10 } });
    expect(set.data!.setProfileRunDefaults).toEqual({
      profileId: 'p1',
      deniedToolStrategy: 'FAIL_RUN',
      maxCalls: 10,
      maxCallsPerTool: null,
      updatedBy: 'admin:test-admin',
    });
    const read = '{ profileRunDefaults { profileId maxCalls } }';
    for (const role of ['ADMIN', 'HOST', 'APPROVER', 'VIEWER'] as const)
      expect((await gql(read, {}, tokens[role])).data).toEqual({
        profileRunDefaults: [{ profileId: 'p1', maxCalls: 10 }],
      });
    for (const role of ['AGENT', 'EXTENSION'] as const)
      expect((await gql(read, {}, tokens[role])).errors![0]!.extensions!.code).toBe('FORBIDDEN');
  });

  test('a glob is not a profile id', async ({ gql }) => {
    const res = await gql(SET, { input: { profileId: 'p*', maxCalls: 1 } });
    expect(res.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
  });

  test("an agent's run takes the profile's defaults for what it omits", async ({ gql, tokens }) => {
    await gql(SET, { input: { profileId: 'p1', maxCalls: 10, maxCallsPerTool: 3 } });
    const res = await gql(CREATE, { input: { profileId: 'p1' } }, tokens.AGENT);
    expect(res.data!.createRun).toMatchObject({
      deniedToolStrategy: 'FAIL_RUN',
      maxCalls: 10,
      maxCallsPerTool: 3,
    });
  });

  test('an agent may tighten the defaults', async ({ gql, tokens }) => {
    await gql(SET, { input: { profileId: 'p1', deniedToolStrategy: 'RETURN_DENIED_RESULT', maxCalls: 10 } });
    const res = await gql(
      CREATE,
      { input: { profileId: 'p1', deniedToolStrategy: 'FAIL_RUN', maxCalls: 4, maxCallsPerTool: 1 } },
      tokens.AGENT,
    );
    expect(res.data!.createRun).toMatchObject({
      deniedToolStrategy: 'FAIL_RUN',
      maxCalls: 4,
      maxCallsPerTool: 1,
    });
  });

  test('an agent asking more calls than the defaults allow is FORBIDDEN, naming the limit', async ({
    gql,
    tokens,
    services,
  }) => {
    await gql(SET, { input: { profileId: 'p1', maxCalls: 10 } });
    const res = await gql(CREATE, { input: { profileId: 'p1', maxCalls: 11 } }, tokens.AGENT);
    expect(res.errors![0]).toMatchObject({
      message: 'maxCalls 11 is above 10, the most the run defaults of profile p1 allow',
      extensions: { code: 'FORBIDDEN' },
    });
    expect(await services.runs.page(admin, { limit: 10, inverted: false })).toEqual([]);
  });

  test('an agent asking RETURN_DENIED_RESULT where the defaults say FAIL_RUN is FORBIDDEN', async ({
    gql,
    tokens,
  }) => {
    await gql(SET, { input: { profileId: 'p1', deniedToolStrategy: 'FAIL_RUN' } });
    const res = await gql(
      CREATE,
      { input: { profileId: 'p1', deniedToolStrategy: 'RETURN_DENIED_RESULT' } },
      tokens.AGENT,
    );
    expect(res.errors![0]).toMatchObject({
      message:
        'deniedToolStrategy RETURN_DENIED_RESULT is laxer than FAIL_RUN, which the run defaults of profile p1 require',
      extensions: { code: 'FORBIDDEN' },
    });
  });

  test("`*` holds for profiles without their own row; a profile's own row replaces it", async ({
    gql,
    tokens,
  }) => {
    await gql(SET, { input: { profileId: '*', maxCalls: 5 } });
    await gql(SET, { input: { profileId: 'p1', maxCalls: 50 } });
    const other = await gql(CREATE, { input: { profileId: 'p2', maxCalls: 6 } }, tokens.AGENT);
    expect(other.errors![0]!.message).toBe(
      'maxCalls 6 is above 5, the most the run defaults of profile * allow',
    );
    const own = await gql(CREATE, { input: { profileId: 'p1', maxCalls: 50 } }, tokens.AGENT);
    expect(own.data!.createRun.maxCalls).toBe(50);
    const none = await gql(CREATE, { input: {} }, tokens.AGENT);
    expect(none.data!.createRun.maxCalls).toBe(5);
  });

  test("removing a profile's row falls back to `*`; removing one that is not there is NOT_FOUND", async ({
    gql,
    tokens,
  }) => {
    await gql(SET, { input: { profileId: '*', maxCalls: 5 } });
    await gql(SET, { input: { profileId: 'p1', maxCalls: 50 } });
    expect((await gql('mutation { removeProfileRunDefaults(profileId: "p1") }')).data).toEqual({
      removeProfileRunDefaults: true,
    });
    const res = await gql(CREATE, { input: { profileId: 'p1' } }, tokens.AGENT);
    expect(res.data!.createRun.maxCalls).toBe(5);
    const again = await gql('mutation { removeProfileRunDefaults(profileId: "p1") }');
    expect(again.errors![0]).toMatchObject({
      message: 'profile p1 has no run defaults',
      extensions: { code: 'NOT_FOUND' },
    });
  });

  test('admins and hosts get the defaults for what they omit, and may set any value', async ({
    services,
  }) => {
    await services.runDefaults.set({ profileId: 'p1', deniedToolStrategy: 'FAIL_RUN', maxCalls: 10 }, 'test');
    const omitted = await services.runs.create({ userId: 'u1', profileId: 'p1' }, host);
    expect(omitted).toMatchObject({ deniedToolStrategy: 'FAIL_RUN', maxCalls: 10, maxCallsPerTool: null });
    const loosened = await services.runs.create(
      { userId: 'u1', profileId: 'p1', maxCalls: 100, deniedToolStrategy: 'RETURN_DENIED_RESULT' },
      admin,
    );
    expect(loosened).toMatchObject({ deniedToolStrategy: 'RETURN_DENIED_RESULT', maxCalls: 100 });
  });

  test('run_started records the resolved limits and which defaults applied', async ({
    gql,
    tokens,
    services,
  }) => {
    await gql(SET, { input: { profileId: 'p1', maxCalls: 10, maxCallsPerTool: 3 } });
    const run = (await gql(CREATE, { input: { profileId: 'p1', maxCalls: 7 } }, tokens.AGENT)).data!
      .createRun;
    const [started] = await services.journal.read({ runId: run.id, limit: 10 });
    expect(started).toMatchObject({
      type: 'run_started',
      payload: {
        userId: 'u1',
        profileId: 'p1',
        deniedToolStrategy: 'FAIL_RUN',
        maxCalls: 7,
        maxCallsPerTool: 3,
        runDefaults: 'p1',
      },
    });
  });

  test('with nothing configured the agent asks what it likes', async ({ gql, tokens }) => {
    const res = await gql(
      CREATE,
      { input: { deniedToolStrategy: 'RETURN_DENIED_RESULT', maxCalls: 1000, maxCallsPerTool: 100 } },
      tokens.AGENT,
    );
    expect(res.data!.createRun).toMatchObject({
      deniedToolStrategy: 'RETURN_DENIED_RESULT',
      maxCalls: 1000,
      maxCallsPerTool: 100,
    });
  });

  test('a run names the token that created it', async ({ gql, tokens, services }) => {
    const res = await gql(CREATE, { input: {} }, tokens.AGENT);
    const [token] = (await services.tokens.list()).filter((t) => t.name === 'test-agent');
    expect(res.data!.createRun.createdByTokenId).toBe(token!.id);
  });
});

describe('run-defaults commands', () => {
  const cli = (
    services: Parameters<typeof runCommand>[1],
    words: string[],
    values: Record<string, string> = {},
  ) => runCommand(runDefaultsCommands, services, words, values);

  test('set, list and remove', async ({ services }) => {
    expect(
      await cli(services, ['run-defaults', 'set', '*'], {
        'denied-tool-strategy': 'fail_run',
        'max-calls': '20',
      }),
    ).toEqual({
      code: 0,
      out: ['run defaults of *: deniedToolStrategy FAIL_RUN, maxCalls 20, maxCallsPerTool -'],
      err: [],
    });
    expect((await services.runDefaults.list())[0]).toMatchObject({
      profileId: '*',
      updatedBy: 'cli:run-defaults',
    });
    expect((await cli(services, ['run-defaults', 'list'])).out).toEqual([
      '*                    deniedToolStrategy FAIL_RUN, maxCalls 20, maxCallsPerTool -',
    ]);
    expect((await cli(services, ['run-defaults', 'remove', '*'])).out).toEqual([
      'removed the run defaults of *',
    ]);
    expect(await services.runDefaults.list()).toEqual([]);
  });

  test('a budget that is not a whole number above 0 is a usage error', async ({ services }) => {
    await expect(cli(services, ['run-defaults', 'set', 'p1'], { 'max-calls': '0' })).rejects.toMatchObject({
      name: 'UsageError',
      message: '--max-calls must be a whole number above 0',
    });
  });
});
