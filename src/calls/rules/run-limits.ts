import type { DeniedToolStrategy } from '../../core/run.js';

/** What an admin configured for a profile's runs; a null field configures nothing. */
export interface ConfiguredRunLimits {
  /** The row the limits come from: the profile's own, or `*`. */
  profileId: string;
  deniedToolStrategy: DeniedToolStrategy | null;
  maxCalls: number | null;
  maxCallsPerTool: number | null;
}

/** What a createRun asks for; absent fields take the configured values. */
export interface AskedRunLimits {
  deniedToolStrategy?: DeniedToolStrategy | null | undefined;
  maxCalls?: number | null | undefined;
  maxCallsPerTool?: number | null | undefined;
}

/** The limits a run gets; a null budget is no limit. */
export interface RunLimits {
  deniedToolStrategy: DeniedToolStrategy;
  maxCalls: number | null;
  maxCallsPerTool: number | null;
}

export type RunLimitsOutcome = { ok: true; limits: RunLimits } | { ok: false; message: string };

/** FAIL_RUN ends the run at the first hidden call; a denied result lets the model go on. */
const strictness: Record<DeniedToolStrategy, number> = { RETURN_DENIED_RESULT: 0, FAIL_RUN: 1 };

/**
 * A run's limits from what an admin configured and what the creator asked for. An omitted value
 * is the configured one (FAIL_RUN when no strategy is configured). With `tightenOnly` (agents) a
 * value may only be stricter than the configured one: a higher budget or a laxer strategy is
 * refused, naming the limit, rather than quietly lowered, so the agent learns what it may ask.
 */
export function resolveRunLimits(
  configured: ConfiguredRunLimits | null,
  asked: AskedRunLimits,
  tightenOnly: boolean,
): RunLimitsOutcome {
  const where = configured ? `the run defaults of profile ${configured.profileId}` : '';
  const budget = (name: 'maxCalls' | 'maxCallsPerTool') => {
    const limit = configured?.[name] ?? null;
    const value = asked[name] ?? null;
    if (value === null) return { value: limit };
    if (tightenOnly && limit !== null && value > limit)
      return { problem: `${name} ${value} is above ${limit}, the most ${where} allow` };
    return { value };
  };
  const maxCalls = budget('maxCalls');
  if ('problem' in maxCalls) return { ok: false, message: maxCalls.problem! };
  const maxCallsPerTool = budget('maxCallsPerTool');
  if ('problem' in maxCallsPerTool) return { ok: false, message: maxCallsPerTool.problem! };
  const configuredStrategy = configured?.deniedToolStrategy ?? null;
  const strategy = asked.deniedToolStrategy ?? configuredStrategy ?? 'FAIL_RUN';
  if (tightenOnly && configuredStrategy && strictness[strategy] < strictness[configuredStrategy])
    return {
      ok: false,
      message: `deniedToolStrategy ${strategy} is laxer than ${configuredStrategy}, which ${where} require`,
    };
  return {
    ok: true,
    limits: {
      deniedToolStrategy: strategy,
      maxCalls: maxCalls.value ?? null,
      maxCallsPerTool: maxCallsPerTool.value ?? null,
    },
  };
}

/**
 * Whether what a run has used can change a call's answer: only when the run or the tool's
 * effective budget (the tightest of the tool's and its rules') limits the number of calls. A
 * request reads the run's usage counters only then.
 */
export function usageLimits(
  run: Pick<RunLimits, 'maxCalls' | 'maxCallsPerTool'>,
  toolMaxCalls: number | null,
) {
  return run.maxCalls !== null || run.maxCallsPerTool !== null || toolMaxCalls !== null;
}
