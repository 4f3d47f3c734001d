import { describe, expect } from 'vitest';
import {
  fakeConnection,
  loopEvents,
  startLoop,
  stoppedLoop,
  agentTest as test,
} from '../../support/agent-loop.js';
import { answer, conversations } from '../../support/fake-provider.js';
import { admin, agent, waitFor } from '../../support/lifecycle.js';
import { allowWorkspace } from '../../support/workspace.js';

const readAgain = { name: 'workspace_read_file', args: { path: 'inputs/missing.md' } };

async function stopPayload(services: Parameters<typeof loopEvents>[0], runId: string) {
  const events = await services.journal.read({ runId, limit: 1000 });
  return events.find((e) => e.type === 'agent_run_stopped')!.payload;
}

describe('the loop stops, each time journaling why', () => {
  test('an answer without calls completes the run after one round (no_calls)', async ({
    services,
    fakeProvider,
  }) => {
    await fakeConnection(services, fakeProvider, 'OPENAI_CHAT');
    fakeProvider.script(answer({ text: 'Nothing to do.' }));
    const { runId } = await startLoop(services);
    const job = await stoppedLoop(services, runId);
    expect([job.stopReason, job.round]).toEqual(['no_calls', 1]);
    expect(await services.metrics.registry.getSingleMetricAsString('ats_model_requests_total')).toContain(
      'ats_model_requests_total{connection="fake",format="OPENAI_CHAT",outcome="ok"} 1',
    );
    expect((await services.runs.get(runId))!.status).toBe('COMPLETED');
    expect(await loopEvents(services, runId)).toEqual([
      'run_started',
      'agent_run_started',
      'agent_round_finished',
      'agent_run_stopped',
      'run_completed',
    ]);
  });

  test('a model that never stops calling tools is stopped at maxRounds, and the run fails saying so', async ({
    services,
    fakeProvider,
  }) => {
    await allowWorkspace(services);
    await fakeConnection(services, fakeProvider, 'ANTHROPIC');
    fakeProvider.always(conversations.neverStops(readAgain));
    const { runId } = await startLoop(services, { maxRounds: 2 });
    const job = await stoppedLoop(services, runId);
    expect([job.stopReason, job.round, fakeProvider.requests.length]).toEqual(['max_rounds', 2, 2]);
    expect(await stopPayload(services, runId)).toMatchObject({ reason: 'max_rounds', rounds: 2 });
    const run = (await services.runs.get(runId))!;
    expect([run.status, run.failure]).toEqual([
      'FAILED',
      {
        kind: 'SYSTEM_FAILURE',
        code: 'max_rounds',
        message: 'the agent loop reached its limit of 2 rounds',
      },
    ]);
  });

  test('the token budget stops it before the request that would go over it', async ({
    services,
    fakeProvider,
  }) => {
    await allowWorkspace(services);
    await fakeConnection(services, fakeProvider, 'GEMINI');
    fakeProvider.always((_request, index) =>
      answer({ calls: [{ id: `c${index}`, ...readAgain }], usage: { input: 100, output: 20 } }),
    );
    const { runId } = await startLoop(services, { maxTokens: 150 });
    const job = await stoppedLoop(services, runId);
    expect([job.stopReason, job.round, job.inputTokens + job.outputTokens]).toEqual(['token_budget', 2, 240]);
    expect(fakeProvider.requests).toHaveLength(2);
    expect(await stopPayload(services, runId)).toMatchObject({
      reason: 'token_budget',
      usage: { inputTokens: 200, outputTokens: 40 },
    });
    expect((await services.runs.get(runId))!.failure?.code).toBe('token_budget');
  });

  test('cancelRun aborts the request in flight and stops the loop (cancelled)', async ({
    services,
    fakeProvider,
  }) => {
    await fakeConnection(services, fakeProvider, 'OPENAI_RESPONSES');
    fakeProvider.script({ kind: 'hang' });
    const { runId } = await startLoop(services);
    const sent = await waitFor(async () => fakeProvider.requests[0]);
    await services.runs.cancel(runId, agent);
    await sent.closed;
    const job = await stoppedLoop(services, runId);
    expect([job.stopReason, job.round, sent.closedEarly]).toEqual(['cancelled', 0, true]);
    expect((await services.runs.get(runId))!.status).toBe('CANCELLED');
    expect(await loopEvents(services, runId)).toEqual([
      'run_started',
      'agent_run_started',
      'run_cancelled',
      'agent_run_stopped',
    ]);
  });

  test('cancelRun while a call waits for approval stops the loop and cancels the call', async ({
    services,
    fakeProvider,
  }) => {
    await allowWorkspace(services);
    await services.policy.set(
      { layer: 'PROFILE', scopeId: 'p1', toolPattern: 'workspace.write_file', effect: 'ASK' },
      admin,
    );
    await fakeConnection(services, fakeProvider, 'OPENAI_CHAT');
    fakeProvider.script(
      conversations.approval({
        id: 'w1',
        name: 'workspace_write_file',
        args: { path: 'output/a.md', content: 'a', mode: 'create' },
      }),
    );
    const { runId } = await startLoop(services);
    const held = await waitFor(async () => {
      const [call] = await services.calls.page({
        runId,
        status: 'AWAITING_APPROVAL',
        limit: 1,
        inverted: false,
      });
      return call;
    });
    await waitFor(async () => (await services.agentRuns.get(runId, agent))?.leaseOwner === null);
    await services.runs.cancel(runId, agent);
    const job = await stoppedLoop(services, runId);
    expect([job.stopReason, job.round, fakeProvider.requests.length]).toEqual(['cancelled', 1, 1]);
    expect((await services.calls.get(held.id))!.status).toBe('CANCELLED');
  });

  test('a run given by id that already has a loop is a CONFLICT', async ({ services, fakeProvider }) => {
    await fakeConnection(services, fakeProvider, 'OPENAI_CHAT');
    fakeProvider.script({ kind: 'hang' });
    const { runId } = await startLoop(services);
    await expect(startLoop(services, { run: null, runId })).rejects.toMatchObject({ code: 'CONFLICT' });
    await services.runs.cancel(runId, agent);
    await stoppedLoop(services, runId);
  });
});
