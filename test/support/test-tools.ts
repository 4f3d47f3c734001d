import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BuiltInTool } from '../../src/calls/tool-contract.js';
import { RecoverableToolError, SystemFailure } from '../../src/core/tool-errors.js';

const object = (properties: Record<string, unknown> = {}, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const readOnly = { readOnly: true, destructive: false, idempotent: true, openWorld: false, cost: null };
const budget = { maxCalls: null, maxOutputTokens: null, timeoutMs: null, approvalTimeoutMs: null };

function tool(name: string, over: Partial<BuiltInTool['spec']>, run: BuiltInTool['run']): BuiltInTool {
  return {
    spec: {
      name,
      title: name,
      description: `test tool ${name}`,
      inputSchema: object(),
      outputSchema: null,
      annotations: readOnly,
      visibility: 'MODEL',
      permission: 'ALWAYS_ALLOW',
      budget,
      ...over,
    },
    run,
  };
}

/**
 * A tool that keeps its effects in the database (it runs in its call's transaction): it journals a
 * marker through the invocation, waits `ms` without looking at its signal (past its 50 ms budget
 * in test.db_slow), then succeeds or, with `outcome: "fail"`, fails recoverably.
 */
function databaseTool(name: string, timeoutMs: number | null): BuiltInTool {
  return {
    ...tool(
      name,
      {
        inputSchema: object(
          {
            marker: { type: 'string' },
            outcome: { enum: ['ok', 'fail'] },
            ms: { type: 'integer', minimum: 0 },
          },
          ['marker', 'outcome'],
        ),
        annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false, cost: null },
        budget: { ...budget, timeoutMs },
      },
      async (inv) => {
        await inv.transaction((_tx, journal) =>
          journal([{ type: 'workspace_changed', payload: { marker: inv.arguments.marker } }]),
        );
        if (inv.arguments.ms) await sleep(Number(inv.arguments.ms));
        if (inv.arguments.outcome === 'fail')
          throw new RecoverableToolError({ own: 'no_hits' }, 'Nothing matched.');
        return { content: [{ type: 'text', text: 'wrote' }] };
      },
    ),
    inDatabase: true,
  };
}

/** Tools that exist only in tests: registered through ServiceOptions.extraTools, never in production. */
export const testTools: BuiltInTool[] = [
  databaseTool('test.db_write', null),
  databaseTool('test.db_slow', 50),
  tool('test.echo', { inputSchema: object({ text: { type: 'string' } }, ['text']) }, async (inv) => ({
    content: [{ type: 'text', text: String(inv.arguments.text) }],
    structured: { echoed: inv.arguments.text },
  })),
  tool('test.noop', {}, async () => ({ content: [] })),
  tool(
    'test.sleep',
    { inputSchema: object({ ms: { type: 'integer', minimum: 0 } }, ['ms']) },
    async (inv) => {
      await sleep(Number(inv.arguments.ms), undefined, { signal: inv.signal });
      return { content: [{ type: 'text', text: 'slept' }] };
    },
  ),
  // Stands for an executor that settles its own race with the deadline: its answer won just as the
  // dispatcher's timer fired, and it says so when aborted.
  tool('test.answers_at_deadline', {}, async (inv) => {
    await new Promise((resolve) => inv.signal.addEventListener('abort', resolve, { once: true }));
    return { content: [{ type: 'text', text: 'answered in time' }] };
  }),
  tool('test.fail_recoverable', {}, async () => {
    throw new RecoverableToolError({ own: 'no_hits' }, 'Nothing matched; try another query.');
  }),
  tool('test.fail_system', {}, async () => {
    throw new SystemFailure('path_escape', 'The path leaves the workspace.');
  }),
  tool('test.big', { inputSchema: object({ chars: { type: 'integer' } }, ['chars']) }, async (inv) => ({
    content: [{ type: 'text', text: 'x'.repeat(Number(inv.arguments.chars)) }],
  })),
  tool('test.typed', { outputSchema: object({ n: { type: 'integer' } }, ['n']) }, async () => ({
    content: [{ type: 'text', text: 'typed' }],
    structured: { n: 'not a number' },
  })),
  tool('test.finish', {}, async () => ({ content: [{ type: 'text', text: 'done' }], completeRun: true })),
  /** Appends a marker line to a file each time it runs: a restart test counts executions across processes. */
  tool(
    'test.side_effect',
    {
      inputSchema: object({ file: { type: 'string' }, marker: { type: 'string' }, ms: { type: 'integer' } }, [
        'file',
        'marker',
      ]),
      annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false, cost: null },
    },
    async (inv) => {
      appendFileSync(String(inv.arguments.file), `${inv.arguments.marker}\n`);
      if (inv.arguments.ms) await sleep(Number(inv.arguments.ms), undefined, { signal: inv.signal });
      return { content: [{ type: 'text', text: 'written' }] };
    },
  ),
  tool(
    'test.idempotent_slow',
    {
      inputSchema: object({ file: { type: 'string' }, marker: { type: 'string' }, ms: { type: 'integer' } }, [
        'file',
        'marker',
      ]),
      annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false, cost: null },
    },
    async (inv) => {
      appendFileSync(String(inv.arguments.file), `${inv.arguments.marker}\n`);
      if (inv.arguments.ms) await sleep(Number(inv.arguments.ms), undefined, { signal: inv.signal });
      return { content: [{ type: 'text', text: 'written' }] };
    },
  ),
  tool(
    'test.dangerous',
    { annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false, cost: null } },
    async () => ({ content: [{ type: 'text', text: 'did something dangerous' }] }),
  ),
];
