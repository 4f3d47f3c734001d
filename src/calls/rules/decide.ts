import {
  budgetExhausted,
  invalidArguments,
  policyDenied,
  toolCannotRun,
  unknownTool,
} from '../../core/call-results.js';
import type { NewJournalEvent } from '../../core/journal-event.js';
import type { ValidationIssue } from '../../core/json-schema.js';
import type { EffectiveTool } from '../../core/policy.js';
import type { DeniedToolStrategy } from '../../core/run.js';
import type { DecisionRecord } from '../../core/tool-call.js';
import type { ToolError } from '../../core/tool-result.js';
import type { ToolSpec } from '../../core/tool-spec.js';

/** Everything the decision depends on, loaded under the run's lock before deciding. */
export interface CallDecisionInput {
  /** The name the caller asked for, which may name no tool. */
  name: string;
  spec: ToolSpec | null;
  /** The policy resolved for `spec` against the run's context and usage; null when there is no spec. */
  view: EffectiveTool | null;
  /** How the arguments failed the tool's input schema; empty when they pass or were not checked. */
  issues: ValidationIssue[];
  deniedToolStrategy: DeniedToolStrategy;
  now: Date;
  /**
   * The latest denial of an identical call in this run (same tool, same canonical arguments)
   * whose person did not allow a retry; null or absent when there is none.
   */
  priorDenial?: PriorDenial | null;
  /**
   * An active RUN grant covering this call; it stands in for the person, after every refusal above.
   * The service never looks one up for a call that needs a quorum.
   */
  standingGrant?: StandingGrant | null;
}

/** A person's scoped grant that approves this call without asking. */
export interface StandingGrant {
  grantId: string;
  grantedBy: string;
  /** The arguments it approves: this call's. */
  argumentsHash: string;
}

/** An earlier identical call a person denied: its decision and what the model was told then. */
export interface PriorDenial {
  callId: string;
  decision: DecisionRecord;
  error: ToolError;
}

/** A journal event of the decision; the service adds the run, the call and (unless it has one) the actor. */
export type DecidedEvent = Pick<NewJournalEvent, 'type' | 'payload'> & { actor?: string };

export type Refusal =
  | 'UNKNOWN_TOOL'
  | 'POLICY_DENIED'
  | 'INVALID_ARGUMENTS'
  | 'BUDGET_EXHAUSTED'
  | 'UNAVAILABLE';

export type CallDecision =
  | {
      outcome: Refusal;
      status: 'FAILED';
      error: ToolError;
      /** The error result's structured content; null keeps the default `{ error: { kind, code } }`. */
      structured: unknown;
      events: DecidedEvent[];
      /** A policy violation under FAIL_RUN ends the run as failed with this error. */
      failRun: boolean;
    }
  | {
      outcome: 'AWAITING_APPROVAL';
      status: 'AWAITING_APPROVAL';
      countsAgainstBudget: true;
      expiresAt: Date | null;
      events: DecidedEvent[];
    }
  | {
      /** An identical call was denied earlier in the run: refused with that decision, nobody is asked. */
      outcome: 'REPEAT_DENIED';
      status: 'DENIED';
      error: ToolError;
      decision: DecisionRecord;
      policyReason: string;
      events: DecidedEvent[];
    }
  | {
      /** A standing grant approved it without asking: the requester dispatches it. */
      outcome: 'GRANTED';
      status: 'APPROVED';
      countsAgainstBudget: true;
      decision: DecisionRecord;
      policyReason: string;
      events: DecidedEvent[];
    }
  | {
      /** The call runs at once: the requester dispatches it. */
      outcome: 'ACCEPTED';
      status: 'REQUESTED';
      countsAgainstBudget: true;
      events: DecidedEvent[];
    };

function refuse(
  outcome: Refusal,
  error: ToolError,
  events: DecidedEvent[] = [],
  structured: unknown = null,
  failRun = false,
): CallDecision {
  return {
    outcome,
    status: 'FAILED',
    error,
    structured,
    events: [...events, { type: 'tool_call_failed', payload: { error } }],
    failRun,
  };
}

/**
 * Seed §5's ladder, first rung that applies wins: a tool that does not exist or that policy
 * denies, arguments that fail the schema, a used-up budget, a tool that cannot run now (no
 * executor, its server or extension not connected), a required approval (refused at once when a
 * person already denied an identical call in the run and allowed no retry, approved at once when a
 * person's RUN grant covers it); otherwise the call runs.
 * Only the first two are policy violations, the ones the run's strategy applies to: a tool that
 * cannot run now is not the caller's fault (it may have been offered a moment ago), so its call
 * fails recoverably under its own code. A refused call does not count against the budget.
 */
export function decideCall(input: CallDecisionInput): CallDecision {
  const { name, spec, view, issues, deniedToolStrategy } = input;
  if (!spec || !view?.permitted) {
    const violation: DecidedEvent = {
      type: 'policy_violation',
      payload: { tool: name, reason: spec ? view!.reason : 'unknown tool', strategy: deniedToolStrategy },
    };
    return refuse(
      spec ? 'POLICY_DENIED' : 'UNKNOWN_TOOL',
      spec ? policyDenied(spec.name, view!.reason) : unknownTool(name),
      [violation],
      null,
      deniedToolStrategy === 'FAIL_RUN',
    );
  }
  if (issues.length > 0)
    return refuse('INVALID_ARGUMENTS', invalidArguments(spec.name, issues), [], { issues });
  if (view.unavailable?.code === 'budget_exhausted' || view.remainingCalls === 0)
    return refuse('BUDGET_EXHAUSTED', budgetExhausted(spec.name));
  if (view.unavailable)
    return refuse('UNAVAILABLE', toolCannotRun(spec.name, view.unavailable.code, view.unavailable.reason));
  if (view.approvalRequired) {
    if (input.priorDenial) return repeatDenied(input.priorDenial);
    if (input.standingGrant) return grantApproved(input.standingGrant, view.reason, input.now);
    const timeout = view.budget.approvalTimeoutMs;
    const expiresAt = timeout ? new Date(input.now.getTime() + timeout) : null;
    return {
      outcome: 'AWAITING_APPROVAL',
      status: 'AWAITING_APPROVAL',
      countsAgainstBudget: true,
      expiresAt,
      events: [
        {
          type: 'tool_call_awaiting_approval',
          payload: { reason: view.reason, expiresAt: expiresAt?.toISOString() ?? null },
        },
      ],
    };
  }
  return { outcome: 'ACCEPTED', status: 'REQUESTED', countsAgainstBudget: true, events: [] };
}

/**
 * No nagging: the person's earlier "no" stands for an identical call, so the model is told the
 * same, and the decision is carried over naming the call it was made on.
 */
function repeatDenied(prior: PriorDenial): CallDecision {
  const { decidedBy, decidedAt, reason, argumentsHash, person } = prior.decision;
  // A carried-over decision names the call the person decided on, not the last repeat.
  const decidedOn = prior.decision.repeatOf ?? prior.callId;
  return {
    outcome: 'REPEAT_DENIED',
    status: 'DENIED',
    error: prior.error,
    decision: { ...prior.decision, allowRetry: false, repeatOf: decidedOn },
    policyReason: `denied without asking again: the identical call ${decidedOn} was denied by ${decidedBy} at ${decidedAt}`,
    events: [
      {
        type: 'tool_call_denied',
        actor: 'system',
        payload: {
          reason,
          repeatOf: decidedOn,
          decidedBy,
          ...(person ? { person } : {}),
          decidedAt,
          argumentsHash,
        },
      },
    ],
  };
}

/** The grant's person said yes for the rest of the run: the call is approved in their name, naming the grant. */
function grantApproved(grant: StandingGrant, policyReason: string, now: Date): CallDecision {
  const reason = `approved without asking by RUN grant ${grant.grantId} of ${grant.grantedBy}`;
  return {
    outcome: 'GRANTED',
    status: 'APPROVED',
    countsAgainstBudget: true,
    decision: {
      approved: true,
      decidedBy: grant.grantedBy,
      reason,
      decidedAt: now.toISOString(),
      argumentsHash: grant.argumentsHash,
    },
    policyReason: `${policyReason}; ${reason}`,
    events: [{ type: 'tool_call_approved', actor: 'system', payload: { grantId: grant.grantId } }],
  };
}
