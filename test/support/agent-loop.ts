import type { Services } from '../../src/app/services.js';
import type { Principal } from '../../src/core/auth.js';
import type { ProviderKind } from '../../src/model/providers/types.js';
import { type FakeProvider, fakeProviderFixtures } from './fake-provider.js';
import { dbTest } from './fixtures.js';
import { agent, waitFor } from './lifecycle.js';

export const API_KEY = 'sk-agent-loop-SECRET-0123456789abcdef';
export const PROMPT = 'Summarise chapter 3 into output/summary.md.';

/** `dbTest` plus a fake provider on a real port, emptied before each test. */
export const agentTest = dbTest.extend<{ fakeProviderFile: FakeProvider; fakeProvider: FakeProvider }>(
  fakeProviderFixtures,
);

/** The connection `fake` to the fake provider in this format, with an API key the tests look for in output. */
export function fakeConnection(services: Services, provider: FakeProvider, format: ProviderKind) {
  return services.modelConnections.set(
    {
      name: 'fake',
      wireFormat: format,
      baseUrl: provider.baseUrl,
      model: 'fake-model',
      apiKey: API_KEY,
      timeoutMs: 5_000,
    },
    'test',
  );
}

/** Starts a loop on a new run of u1 on profile p1 (workspace ws-1) as the test agent. */
export function startLoop(
  services: Services,
  input: Record<string, unknown> = {},
  principal: Principal = agent,
) {
  return services.agentRuns.start(
    {
      run: { profileId: 'p1', userId: 'u1', workspaceId: 'ws-1' },
      connection: 'fake',
      presetName: 'default',
      prompt: PROMPT,
      ...input,
    },
    principal,
  );
}

/** Waits until the run's loop has stopped, and returns it. */
export function stoppedLoop(services: Services, runId: string, principal: Principal = agent) {
  return waitFor(async () => {
    const job = await services.agentRuns.get(runId, principal);
    return job?.status === 'STOPPED' && job;
  });
}

/** The loop's own events and the run's end, in order. */
export async function loopEvents(services: Services, runId: string) {
  const events = await services.journal.read({ runId, limit: 1000 });
  return events
    .filter(
      (e) => e.type.startsWith('agent_') || e.type === 'model_request_failed' || e.type.startsWith('run_'),
    )
    .map((e) => e.type);
}
