/** Pure rules of the agent loop: its states, why it stops, and what a stop does to the run. */

export const agentJobStatuses = ['RUNNING', 'STOPPED'] as const;
export type AgentJobStatus = (typeof agentJobStatuses)[number];

export const agentJobPhases = ['REQUEST', 'WAIT'] as const;
export type AgentJobPhase = (typeof agentJobPhases)[number];

export const agentStopReasons = [
  /** The model answered without calling a tool. */
  'no_calls',
  /** workspace.finish completed. */
  'finished',
  'max_rounds',
  'token_budget',
  /** The run was cancelled (cancelRun, or the run ended some other way while the loop waited). */
  'cancelled',
  /** The model request failed after its retries. */
  'model_request_failed',
  /** Anything else that went wrong: the run ended FAILED by the lifecycle, a request that cannot be built. */
  'system_failure',
] as const;
export type AgentStopReason = (typeof agentStopReasons)[number];

/** What the run becomes when the loop stops: done, failed, or left as it already is. */
export function runEndFor(reason: AgentStopReason): 'COMPLETED' | 'FAILED' | null {
  switch (reason) {
    case 'no_calls':
    case 'finished':
      return 'COMPLETED';
    case 'max_rounds':
    case 'token_budget':
    case 'model_request_failed':
    case 'system_failure':
      return 'FAILED';
    case 'cancelled':
      return null;
  }
}

export interface LimitState {
  round: number;
  maxRounds: number;
  maxTokens: number | null;
  inputTokens: number;
  outputTokens: number;
}

/** A limit reached before the next request, or null when it may be sent. */
export function limitReached(job: LimitState): 'max_rounds' | 'token_budget' | null {
  if (job.round >= job.maxRounds) return 'max_rounds';
  if (job.maxTokens !== null && job.inputTokens + job.outputTokens >= job.maxTokens) return 'token_budget';
  return null;
}

/** The loop's own tool for "the work is done": its completion ends the loop. */
export const FINISH_TOOL = 'workspace.finish';

/**
 * Tools `--auto-approve` may approve: read-only ones (which cannot be destructive). Cost says
 * nothing about effects: a LOW-cost tool that writes a file still writes it, so anything that
 * writes or deletes waits for a person.
 */
export function autoApprovable(annotations: {
  readOnly: boolean;
  destructive: boolean;
  openWorld: boolean;
  cost: string | null;
}): boolean {
  return annotations.readOnly;
}
