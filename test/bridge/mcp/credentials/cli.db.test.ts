import { afterEach, describe, expect } from 'vitest';
import { mcpCommands } from '../../../../src/bridge/mcp/cli.js';
import { runCommand } from '../../../support/cli.js';
import { dbTest as test } from '../../../support/fixtures.js';
import { addServer } from '../../../support/mcp.js';

afterEach(() => {
  delete process.env.ATS_TEST_GH_TOKEN;
});

describe('mcp credential: the operator’s commands', () => {
  test('set reads the value from the environment, and nothing printed carries it', async ({ services }) => {
    await addServer(services, {
      name: 'gh',
      transport: 'STREAMABLE_HTTP',
      url: 'http://127.0.0.1:9/mcp',
      userCredential: { mode: 'STORED' },
    });
    process.env.ATS_TEST_GH_TOKEN = 'ghp_from-the-env';
    const set = await runCommand(mcpCommands, services, ['mcp', 'credential', 'set', 'gh'], {
      user: 'alice',
      'from-env': 'ATS_TEST_GH_TOKEN',
    });
    expect(set.out[0]).toMatch(/^set gh {2}alice {2}stored {2}key t1 {2}set \d{4}-/);
    const list = await runCommand(mcpCommands, services, ['mcp', 'credential', 'list']);
    expect(list.out).toHaveLength(1);
    expect(JSON.stringify([set, list])).not.toContain('ghp_from-the-env');
    expect((await runCommand(mcpCommands, services, ['mcp', 'credential', 'reencrypt'])).out).toEqual([
      're-encrypted 0 credentials',
    ]);
    const removed = await runCommand(mcpCommands, services, ['mcp', 'credential', 'remove', 'gh'], {
      user: 'alice',
    });
    expect(removed.out).toEqual(['removed gh alice']);
  });

  test('mcp add --user-credential configures how each user’s credential is sent', async ({ services }) => {
    const added = await runCommand(mcpCommands, services, ['mcp', 'add', 'up'], {
      url: 'http://127.0.0.1:9/mcp',
      'user-credential': 'token_exchange',
      audience: 'upstream-mcp',
      'credential-scheme': 'bearer',
    });
    expect(added.out[0]).toMatch(/ {2}per-user: token_exchange$/);
    expect((await services.mcpServers.require('up')).userCredential).toEqual({
      mode: 'TOKEN_EXCHANGE',
      header: 'Authorization',
      scheme: 'BEARER',
      audience: 'upstream-mcp',
      scope: null,
    });
  });

  test('set without the variable in the environment is a usage error naming it', async ({ services }) => {
    await expect(
      runCommand(mcpCommands, services, ['mcp', 'credential', 'set', 'gh'], {
        user: 'alice',
        'from-env': 'ATS_TEST_GH_TOKEN',
      }),
    ).rejects.toThrow('the environment variable ATS_TEST_GH_TOKEN is not set');
  });
});
