import { describe, expect, test } from 'vitest';
import {
  type AskedRunLimits,
  type ConfiguredRunLimits,
  type RunLimitsOutcome,
  resolveRunLimits,
  usageLimits,
} from '../../../src/calls/rules/run-limits.js';

const configured: ConfiguredRunLimits = {
  profileId: 'p1',
  deniedToolStrategy: 'FAIL_RUN',
  maxCalls: 10,
  maxCallsPerTool: 3,
};
const lenient: ConfiguredRunLimits = { ...configured, deniedToolStrategy: 'RETURN_DENIED_RESULT' };
const budgetsOnly: ConfiguredRunLimits = { ...configured, deniedToolStrategy: null };

const ok = (
  deniedToolStrategy: 'FAIL_RUN' | 'RETURN_DENIED_RESULT',
  maxCalls: number | null,
  maxCallsPerTool: number | null,
): RunLimitsOutcome => ({ ok: true, limits: { deniedToolStrategy, maxCalls, maxCallsPerTool } });
const refused = (message: string): RunLimitsOutcome => ({ ok: false, message });

/** [case, configured, asked, tighten only (an agent), outcome] */
const cases: Array<[string, ConfiguredRunLimits | null, AskedRunLimits, boolean, RunLimitsOutcome]> = [
  ['nothing configured, nothing asked: FAIL_RUN, no budgets', null, {}, true, ok('FAIL_RUN', null, null)],
  [
    "nothing configured: the agent's values stand",
    null,
    { deniedToolStrategy: 'RETURN_DENIED_RESULT', maxCalls: 500, maxCallsPerTool: 100 },
    true,
    ok('RETURN_DENIED_RESULT', 500, 100),
  ],
  ['omitted values are the configured ones', configured, {}, true, ok('FAIL_RUN', 10, 3)],
  ['null is omitted, not "no limit"', configured, { maxCalls: null }, true, ok('FAIL_RUN', 10, 3)],
  ['lower budgets tighten', configured, { maxCalls: 5, maxCallsPerTool: 1 }, true, ok('FAIL_RUN', 5, 1)],
  ['the configured budget itself is allowed', configured, { maxCalls: 10 }, true, ok('FAIL_RUN', 10, 3)],
  [
    'maxCalls above the default is refused, naming the limit',
    configured,
    { maxCalls: 11 },
    true,
    refused('maxCalls 11 is above 10, the most the run defaults of profile p1 allow'),
  ],
  [
    'maxCallsPerTool above the default is refused, naming the limit',
    configured,
    { maxCallsPerTool: 4 },
    true,
    refused('maxCallsPerTool 4 is above 3, the most the run defaults of profile p1 allow'),
  ],
  [
    'RETURN_DENIED_RESULT where FAIL_RUN is configured is refused',
    configured,
    { deniedToolStrategy: 'RETURN_DENIED_RESULT' },
    true,
    refused(
      'deniedToolStrategy RETURN_DENIED_RESULT is laxer than FAIL_RUN, which the run defaults of profile p1 require',
    ),
  ],
  [
    'FAIL_RUN where RETURN_DENIED_RESULT is configured tightens',
    lenient,
    { deniedToolStrategy: 'FAIL_RUN' },
    true,
    ok('FAIL_RUN', 10, 3),
  ],
  ['a configured lenient strategy is the default', lenient, {}, true, ok('RETURN_DENIED_RESULT', 10, 3)],
  [
    'budgets configured, no strategy: omitted is FAIL_RUN, either may be asked',
    budgetsOnly,
    { deniedToolStrategy: 'RETURN_DENIED_RESULT' },
    true,
    ok('RETURN_DENIED_RESULT', 10, 3),
  ],
  [
    'a budget the defaults leave open may be set to anything',
    { ...configured, maxCalls: null },
    { maxCalls: 1000 },
    true,
    ok('FAIL_RUN', 1000, 3),
  ],
  [
    'admins and hosts get the defaults for what they omit but may loosen',
    configured,
    { maxCalls: 50, deniedToolStrategy: 'RETURN_DENIED_RESULT' },
    false,
    ok('RETURN_DENIED_RESULT', 50, 3),
  ],
];

describe('resolveRunLimits', () => {
  test.for(cases)('%s', ([, given, asked, tightenOnly, outcome]) => {
    expect(resolveRunLimits(given, asked, tightenOnly)).toEqual(outcome);
  });
});

describe('usageLimits', () => {
  const unlimited = { maxCalls: null, maxCallsPerTool: null };
  test.for([
    ['a run and a tool without limits', unlimited, null, false],
    ['a run with a call budget', { ...unlimited, maxCalls: 10 }, null, true],
    ['a run with a per-tool budget', { ...unlimited, maxCallsPerTool: 3 }, null, true],
    ['a tool whose effective budget limits its calls', unlimited, 5, true],
    ['a budget of no calls at all', unlimited, 0, true],
  ] as const)('%s', ([, run, toolMaxCalls, matters]) => {
    expect(usageLimits(run, toolMaxCalls)).toBe(matters);
  });
});
