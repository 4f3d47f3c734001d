import { renderApprovalMessage } from '../../core/approval-message.js';
import { denialResult, errorResult } from '../../core/call-results.js';
import { summarize } from '../../core/canonical-json.js';
import type { NewJournalEvent } from '../../core/journal-event.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import type { CallDecision } from '../rules/decide.js';
import type { ToolCallRow, ToolSnapshot } from '../tables.js';

/** What is written about a call when it is recorded: its tool snapshot and its request event. */

/** A call's arguments, requested or edited, are at most this much JSON. */
export const MAX_ARGUMENT_BYTES = 256 * 1024;

/**
 * What the tool was when the call was made. The approval message is rendered now, from these
 * arguments, so the approver reads what this call will do even if the tool is re-registered.
 */
export function snapshotOf(spec: ToolSpec, args: Record<string, unknown>): ToolSnapshot {
  return {
    title: spec.title,
    source: spec.source,
    annotations: spec.annotations,
    displayName: spec.displayName ?? null,
    approvalMessage: spec.approvalTemplate ? renderApprovalMessage(spec.approvalTemplate, args) : null,
  };
}

export function requestedEvent(
  call: Pick<ToolCallRow, 'id' | 'runId' | 'name' | 'argumentsHash' | 'providerCallId'>,
  args: unknown,
  actor: string,
  extra: Record<string, unknown> = {},
): NewJournalEvent {
  return {
    type: 'tool_call_requested',
    runId: call.runId,
    callId: call.id,
    actor,
    payload: {
      name: call.name,
      argumentsHash: call.argumentsHash,
      arguments: summarize(args),
      providerCallId: call.providerCallId,
      ...extra,
    },
  };
}

/** The columns a call's decision sets on the row just recorded. */
export function changesOf(callId: string, decision: CallDecision) {
  switch (decision.status) {
    case 'FAILED':
      return {
        status: decision.status,
        error: decision.error,
        result: errorResult(callId, decision.error, decision.structured),
        finishedAt: new Date(),
      };
    case 'DENIED':
      return {
        status: decision.status,
        decision: decision.decision,
        policyReason: decision.policyReason,
        error: decision.error,
        result: denialResult(callId, decision.error, decision.decision),
        finishedAt: new Date(),
      };
    case 'APPROVED':
      return {
        status: decision.status,
        decision: decision.decision,
        policyReason: decision.policyReason,
        countsAgainstBudget: decision.countsAgainstBudget,
      };
    case 'AWAITING_APPROVAL':
      return {
        status: decision.status,
        countsAgainstBudget: decision.countsAgainstBudget,
        approvalExpiresAt: decision.expiresAt,
      };
    case 'REQUESTED':
      return { countsAgainstBudget: decision.countsAgainstBudget };
  }
}
