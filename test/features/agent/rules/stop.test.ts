import { describe, expect, test } from 'vitest';
import { normalizeAnnotations } from '../../../../src/core/tool-spec.js';
import {
  type AgentStopReason,
  agentStopReasons,
  autoApprovable,
  limitReached,
  runEndFor,
} from '../../../../src/features/agent/rules/stop.js';

describe('the agent loop’s rules', () => {
  test('--auto-approve approves only read-only tools: a LOW-cost write waits', () => {
    const cases: Array<[Parameters<typeof normalizeAnnotations>[0], boolean]> = [
      [{ readOnly: true }, true],
      [{ readOnly: true, cost: 'LOW' }, true],
      [{ readOnly: false, destructive: false, openWorld: false, cost: 'LOW' }, false],
      [{ readOnly: false, destructive: true, openWorld: false, cost: 'LOW' }, false],
      [{ readOnly: false, destructive: false, openWorld: true, cost: 'LOW' }, false],
      [{ readOnly: false, destructive: false, openWorld: false, cost: 'HIGH' }, false],
      [{}, false],
    ];
    for (const [annotations, safe] of cases)
      expect(autoApprovable(normalizeAnnotations(annotations))).toBe(safe);
  });

  test('a limit is reached at maxRounds rounds, or at maxTokens input plus output tokens', () => {
    const job = { round: 2, maxRounds: 3, maxTokens: 100, inputTokens: 60, outputTokens: 39 };
    expect(limitReached(job)).toBeNull();
    expect(limitReached({ ...job, round: 3 })).toBe('max_rounds');
    expect(limitReached({ ...job, outputTokens: 40 })).toBe('token_budget');
    expect(limitReached({ ...job, maxTokens: null, outputTokens: 1e6 })).toBeNull();
  });

  test('finishing completes the run, limits and failures fail it, a cancel leaves it as it is', () => {
    const ends = Object.fromEntries(agentStopReasons.map((r: AgentStopReason) => [r, runEndFor(r)]));
    expect(ends).toEqual({
      no_calls: 'COMPLETED',
      finished: 'COMPLETED',
      max_rounds: 'FAILED',
      token_budget: 'FAILED',
      cancelled: null,
      model_request_failed: 'FAILED',
      system_failure: 'FAILED',
    });
  });
});
