import { sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import type { Services } from '../../src/app/services.js';
import { runTest as test } from '../support/fixtures.js';
import { admin, agent, allow, approver, newRun } from '../support/lifecycle.js';

const noop = (services: Services, runId: string) =>
  services.calls.request({ runId, name: 'test.noop' }, agent);
const echo = (services: Services, runId: string, text: string) =>
  services.calls.request({ runId, name: 'test.echo', arguments: { text } }, agent);

/** The counters the trigger keeps, and the same numbers counted from the calls themselves. */
async function countersAndRecount(services: Services, runId: string) {
  const rows = async (query: ReturnType<typeof sql>) => {
    const result = (await services.database.db.execute(query)) as unknown as
      | { rows: Array<{ name: string; calls: number }> }
      | Array<{ name: string; calls: number }>;
    return ('rows' in result ? result.rows : result).map((r) => ({ name: r.name, calls: Number(r.calls) }));
  };
  return {
    counters: await rows(
      sql`select tool_name as name, calls from run_tool_usage where run_id = ${runId} and calls > 0 order by tool_name`,
    ),
    recount: await rows(
      sql`select name, count(*) as calls from tool_calls where run_id = ${runId} and counts_against_budget group by name order by name`,
    ),
  };
}

describe('run usage', () => {
  test('maxCalls: the call after the last one the run may make is refused', async ({ services }) => {
    await allow(services);
    const run = await newRun(services, { maxCalls: 3 });
    const calls = [
      await noop(services, run.id),
      await echo(services, run.id, 'a'),
      await noop(services, run.id),
      await echo(services, run.id, 'b'),
    ];
    expect(calls.map((c) => c.status)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED', 'FAILED']);
    expect(calls[3]!.error).toMatchObject({ code: 'budget_exhausted' });
  });

  test('maxCallsPerTool: a tool refused after its last call still leaves the others', async ({
    services,
  }) => {
    await allow(services);
    const run = await newRun(services, { maxCallsPerTool: 2 });
    const calls = [
      await noop(services, run.id),
      await noop(services, run.id),
      await noop(services, run.id),
      await echo(services, run.id, 'a'),
    ];
    expect(calls.map((c) => c.status)).toEqual(['COMPLETED', 'COMPLETED', 'FAILED', 'COMPLETED']);
    expect(calls[2]!.error).toMatchObject({ code: 'budget_exhausted' });
  });

  test('a refused call uses none of the budget', async ({ services }) => {
    await allow(services);
    const run = await newRun(services, { maxCallsPerTool: 1 });
    await noop(services, run.id);
    await noop(services, run.id);
    const usage = await services.runs.usage(services.database.db, run);
    expect(usage.totalCalls).toBe(1);
    expect([...usage.callsByTool]).toEqual([['test.noop', 1]]);
  });

  test('an edited call stops counting: it and its replacement use one call of the budget', async ({
    services,
    run,
  }) => {
    await services.policy.set(
      { layer: 'USER', scopeId: 'u1', toolPattern: 'test.echo', effect: 'ASK' },
      admin,
    );
    const held = await echo(services, run.id, 'drafts/a.md');
    const before = await services.runs.usage(services.database.db, run);
    await services.calls.approve(held.id, { editedArguments: { text: 'drafts/b.md' } }, approver);
    const after = await services.runs.usage(services.database.db, run);
    expect([before.totalCalls, after.totalCalls]).toEqual([1, 1]);
    expect([...after.callsByTool]).toEqual([['test.echo', 1]]);
  });

  test('after a mix of calls the counters equal a recount of the calls', async ({ services }) => {
    await allow(services);
    await services.policy.set(
      { layer: 'USER', scopeId: 'u1', toolPattern: 'test.dangerous', effect: 'ASK' },
      admin,
    );
    const run = await newRun(services, { maxCallsPerTool: 3 });
    for (let i = 0; i < 4; i += 1) await noop(services, run.id);
    await echo(services, run.id, 'a');
    await services.calls.request({ runId: run.id, name: 'test.echo', arguments: { wrong: 1 } }, agent);
    await services.calls.request({ runId: run.id, name: 'test.fail_recoverable' }, agent);
    const denied = await services.calls.request({ runId: run.id, name: 'test.dangerous' }, agent);
    await services.calls.deny(denied.id, { reason: 'no' }, approver);
    // Refused by the denial before it: uses nothing.
    await services.calls.request({ runId: run.id, name: 'test.dangerous' }, agent);
    const { counters, recount } = await countersAndRecount(services, run.id);
    expect(counters).toEqual(recount);
    expect(counters).toEqual([
      { name: 'test.dangerous', calls: 1 },
      { name: 'test.echo', calls: 1 },
      { name: 'test.fail_recoverable', calls: 1 },
      { name: 'test.noop', calls: 3 },
    ]);
  });
});
