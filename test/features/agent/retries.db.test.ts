import { pino } from 'pino';
import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import {
  API_KEY,
  agentTest,
  fakeConnection,
  loopEvents,
  startLoop,
  stoppedLoop,
} from '../../support/agent-loop.js';
import { answer, conversations, status } from '../../support/fake-provider.js';
import { startServices } from '../../support/services.js';

/** The services log at debug level into `logs`, so a test can grep everything they wrote. */
const test = agentTest.extend<{ logs: string[]; services: Services }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads the destructuring to learn a fixture's dependencies.
  logs: async ({}, use) => use([]),
  services: async ({ testDb, logs }, use) => {
    const services = await startServices(
      testDb.database,
      {},
      pino({ level: 'debug' }, { write: (line: string) => logs.push(line) }),
    );
    await use(services);
    await services.stop();
  },
});

/** A 400 whose body echoes the key, as some gateways do. */
const echoesTheKey = status(
  400,
  {},
  JSON.stringify({ error: { type: 'invalid_request_error', message: `bad request for key ${API_KEY}` } }),
);

async function failures(services: Services, runId: string) {
  const events = await services.journal.read({ runId, limit: 1000 });
  return events.filter((e) => e.type === 'model_request_failed').map((e) => e.payload);
}

describe('model requests that fail', () => {
  test('a 429 is retried after its Retry-After, and the round goes on', async ({
    services,
    fakeProvider,
  }) => {
    await fakeConnection(services, fakeProvider, 'OPENAI_CHAT');
    fakeProvider.script(conversations.rateLimited({ text: 'Here.' }, 1));
    const { runId } = await startLoop(services);
    const job = await stoppedLoop(services, runId);
    expect([job.stopReason, fakeProvider.requests.length]).toEqual(['no_calls', 2]);
    const [first, second] = fakeProvider.requests;
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(1000);
    const [failure] = await failures(services, runId);
    expect(failure).toMatchObject({
      round: 1,
      attempt: 1,
      status: 429,
      reason: 'rate_limit_error: slow down',
    });
    expect(failure!.retryInMs).toBeGreaterThanOrEqual(1000);
    expect((await services.agentRuns.rounds(runId))[0]!.attempts).toBe(2);
  });

  test('a 400 is not retried: the run fails with the journaled status and reason, and the key is nowhere', async ({
    services,
    fakeProvider,
    logs,
  }) => {
    await fakeConnection(services, fakeProvider, 'ANTHROPIC');
    fakeProvider.script(echoesTheKey, answer({ text: 'never sent' }));
    const { runId } = await startLoop(services);
    const job = await stoppedLoop(services, runId);
    expect([job.stopReason, fakeProvider.requests.length]).toEqual(['model_request_failed', 1]);
    expect(await failures(services, runId)).toEqual([
      {
        round: 1,
        connection: 'fake',
        attempt: 1,
        status: 400,
        kind: 'http_status',
        reason: 'invalid_request_error: bad request for key [redacted]',
        retryInMs: null,
      },
    ]);
    expect(await loopEvents(services, runId)).toEqual([
      'run_started',
      'agent_run_started',
      'model_request_failed',
      'agent_run_stopped',
      'run_failed',
    ]);
    const run = (await services.runs.get(runId))!;
    expect(run.failure).toEqual({
      kind: 'SYSTEM_FAILURE',
      code: 'model_request_failed',
      message:
        'model request to fake failed after 1 attempt: HTTP 400: invalid_request_error: bad request for key [redacted]',
    });
    const journal = JSON.stringify(await services.journal.read({ limit: 1000 }), (_k, v) =>
      typeof v === 'bigint' ? String(v) : v,
    );
    expect(logs.length).toBeGreaterThan(0);
    for (const text of [journal, JSON.stringify(run), logs.join('\n')]) expect(text).not.toContain(API_KEY);
  });

  test('when the retries are spent the run fails, each failed attempt journaled', async ({
    services,
    fakeProvider,
    logs,
  }) => {
    await fakeConnection(services, fakeProvider, 'GEMINI');
    fakeProvider.always(() =>
      status(503, {}, `{"error":{"status":"UNAVAILABLE","message":"down ${API_KEY}"}}`),
    );
    const { runId } = await startLoop(services);
    const job = await stoppedLoop(services, runId);
    expect([job.stopReason, fakeProvider.requests.length]).toEqual(['model_request_failed', 4]);
    const seen = await failures(services, runId);
    expect(seen.map((f) => [f.attempt, f.status, f.retryInMs === null])).toEqual([
      [1, 503, false],
      [2, 503, false],
      [3, 503, false],
      [4, 503, true],
    ]);
    expect(seen.every((f) => f.reason === 'UNAVAILABLE: down [redacted]')).toBe(true);
    expect((await services.runs.get(runId))!.failure?.code).toBe('model_request_failed');
    expect(logs.join('\n')).not.toContain(API_KEY);
  });
});
