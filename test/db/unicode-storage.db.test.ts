import { describe, expect } from 'vitest';
import { runTest as test } from '../support/fixtures.js';
import { agent, eventTypes } from '../support/lifecycle.js';

describe('text Postgres cannot store as JSON', () => {
  test('arguments whose journal summary is cut inside a run of emoji are stored, and the cut keeps whole characters', async ({
    services,
    run,
  }) => {
    const text = '😀'.repeat(300);
    const call = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text } },
      agent,
    );
    expect(call.status).toBe('COMPLETED');
    expect(call.arguments).toEqual({ text });
    const [requested] = await services.journal.read({ callId: call.id, limit: 1 });
    expect(requested!.payload.arguments).toMatch(/^\{"text":"(😀)+… \(\d+ characters\)$/u);
  });

  test('a lone surrogate or NUL in arguments is stored as U+FFFD instead of failing the call', async ({
    services,
    run,
  }) => {
    const call = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 'half \ud83d and nul \u0000' } },
      agent,
    );
    expect(call.status).toBe('COMPLETED');
    const stored = await services.calls.get(call.id);
    expect(stored!.arguments).toEqual({ text: 'half \ufffd and nul \ufffd' });
    expect(await eventTypes(services, { callId: call.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'tool_call_completed',
    ]);
  });
});
