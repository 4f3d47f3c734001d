import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { agentCommands } from '../../../src/features/agent/index.js';
import { fakeConnection, agentTest as test } from '../../support/agent-loop.js';
import { runCommand } from '../../support/cli.js';
import { answer } from '../../support/fake-provider.js';
import { admin } from '../../support/lifecycle.js';
import { allowWorkspace } from '../../support/workspace.js';

/** The test's services are already started: the command's own start and stop are left out. */
const started = (services: Services) =>
  ({ ...services, start: async () => {}, stop: async () => {} }) as Services;

describe('agent run (CLI)', () => {
  test('prints the streamed text, each call and its status, auto-approves a read-only tool, and ends with the stop reason', async ({
    services,
    fakeProvider,
  }) => {
    await allowWorkspace(services);
    await services.policy.set(
      { layer: 'PROFILE', scopeId: 'p1', toolPattern: 'workspace.read_file', effect: 'ASK' },
      admin,
    );
    await fakeConnection(services, fakeProvider, 'OPENAI_CHAT');
    fakeProvider.script(
      answer({
        text: 'Reading.',
        calls: [{ id: 'c1', name: 'workspace_read_file', args: { path: 'inputs/none.md' } }],
      }),
      answer({ text: 'Done.' }),
    );
    const { code, out } = await runCommand(
      agentCommands as never,
      started(services),
      ['agent', 'run', 'Read', 'inputs/none.md'],
      { connection: 'fake', profile: 'p1', workspace: 'ws-1', user: 'u1', 'auto-approve': true },
    );
    expect(code).toBe(0);
    expect(out[0]).toMatch(/^run [0-9a-f-]{36}$/);
    const calls = out.filter((line) => line.startsWith('→') || line.startsWith('  workspace.'));
    expect(calls).toEqual([
      '→ workspace.read_file {"path":"inputs/none.md"}',
      '  workspace.read_file: awaiting approval',
      '  workspace.read_file: approved',
      '  workspace.read_file: started',
      '  workspace.read_file: failed',
    ]);
    expect(out).toContain('Reading.');
    expect(out).toContain('Done.');
    expect(out.at(-1)).toBe('stopped: no_calls after 2 rounds');
  });
});
