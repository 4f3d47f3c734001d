import { openCallStatuses } from '../calls/run-service.js';
import type { ToolCallRow } from '../calls/tool-call-service.js';
import { errorResult } from '../core/call-results.js';
import type { CallOutcome } from './providers/types.js';

export const isOpen = (call: ToolCallRow): boolean =>
  (openCallStatuses as readonly string[]).includes(call.status);

/**
 * What the model is told about a finished call. A call that started and then stopped because its
 * run ended, or whose worker died, may have partly run: that is "interrupted", never "denied"; a
 * call nobody decided on in time is "expired", never "denied".
 * `callId` is the provider's id, the one the assistant turn used.
 */
export function outcomeOf(call: ToolCallRow, providerCallId: string): CallOutcome {
  const message = call.error?.message;
  switch (call.status) {
    case 'DENIED':
      if (call.decision?.feedback)
        return {
          callId: providerCallId,
          outcome: 'denied',
          deniedBy: call.decision.decidedBy,
          feedback: call.decision.feedback,
        };
      return { callId: providerCallId, outcome: 'denied', ...(message ? { message } : {}) };
    case 'EXPIRED':
      return { callId: providerCallId, outcome: 'expired' };
    case 'CANCELLED':
      return call.startedAt === null
        ? { callId: providerCallId, outcome: 'cancelled' }
        : {
            callId: providerCallId,
            outcome: 'interrupted',
            message: 'the run stopped while the call was running',
          };
    case 'FAILED':
      if (call.error?.code === 'interrupted') {
        return { callId: providerCallId, outcome: 'interrupted', ...(message ? { message } : {}) };
      }
      if (call.error?.code === 'cancelled') return { callId: providerCallId, outcome: 'cancelled' };
      return {
        callId: providerCallId,
        outcome: 'result',
        result: call.result ?? errorResult(call.id, call.error!),
      };
    default:
      return {
        callId: providerCallId,
        outcome: 'result',
        result: call.result!,
      };
  }
}
