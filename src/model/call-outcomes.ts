import { inArray } from 'drizzle-orm';
import { openCallStatuses } from '../calls/index.js';
import { type ToolCallRow, toolCalls } from '../calls/tables.js';
import { errorResult } from '../core/call-results.js';
import type { Executor } from '../db/tx.js';
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
  const outcome = notEditedOutcomeOf(call, providerCallId);
  // A replacement answers for the call a person edited: the model learns which arguments it had.
  return call.replaces
    ? { ...outcome, edited: { by: call.requestedBy, arguments: call.arguments } }
    : outcome;
}

function notEditedOutcomeOf(call: ToolCallRow, providerCallId: string): CallOutcome {
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
    case 'EDITED':
      // Answered by its replacement (see answeringCalls); this is only what the call itself came to.
      return {
        callId: providerCallId,
        outcome: 'invalid',
        message: `a person edited its arguments; call ${call.edit?.replacedBy} ran instead`,
      };
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

/**
 * For each EDITED call among these, the call that answers for it: the last of its replacements (a
 * replacement still awaiting a quorum can be edited again). Keyed by the edited call's id.
 */
export async function answeringCalls(
  db: Executor,
  calls: readonly ToolCallRow[],
): Promise<Map<string, ToolCallRow>> {
  const answering = new Map<string, ToolCallRow>();
  let edited = calls.filter((c) => c.status === 'EDITED');
  const rootOf = new Map(edited.map((c) => [c.id, c.id]));
  while (edited.length > 0) {
    const next = await db
      .select()
      .from(toolCalls)
      .where(
        inArray(
          toolCalls.replaces,
          edited.map((c) => c.id),
        ),
      );
    for (const replacement of next) {
      const root = rootOf.get(replacement.replaces!)!;
      answering.set(root, replacement);
      rootOf.set(replacement.id, root);
    }
    edited = next.filter((c) => c.status === 'EDITED');
  }
  return answering;
}

/** The call a model's call id belongs to: a replacement's is the original it was edited from. */
export async function originalsOf(db: Executor, calls: readonly ToolCallRow[]): Promise<ToolCallRow[]> {
  const result = [...calls];
  for (;;) {
    const replaced = result.filter((c) => c.replaces);
    if (replaced.length === 0) return result;
    const parents = await db
      .select()
      .from(toolCalls)
      .where(
        inArray(
          toolCalls.id,
          replaced.map((c) => c.replaces!),
        ),
      );
    const byId = new Map(parents.map((p) => [p.id, p]));
    for (const [i, c] of result.entries()) if (c.replaces) result[i] = byId.get(c.replaces)!;
  }
}
