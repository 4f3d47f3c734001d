import { and, eq, inArray } from 'drizzle-orm';
import { type RunRow, toolCalls } from '../calls/tables.js';
import { conflict } from '../core/errors.js';
import type { Db } from '../db/client.js';
import { answeringCalls, isOpen, outcomeOf } from './call-outcomes.js';
import type { ConversationTurn } from './context/render.js';
import type { AssistantTurn, CallOutcome } from './providers/types.js';
import type { ModelTurnRow } from './tables.js';

function assistantTurnOf(row: ModelTurnRow): AssistantTurn {
  return {
    provider: row.provider,
    native: JSON.parse(row.native) as unknown[],
    parts: row.parts,
  };
}

const callIdsOf = (turn: AssistantTurn) =>
  turn.parts.flatMap((part) => (part.kind === 'tool_call' ? [part.call.id] : []));

/**
 * Each call of a stored turn with its outcome. A call still pending has none yet: that is a
 * CONFLICT, since providers reject a history with an unanswered call. A call that was never
 * requested because its run ended first is answered as cancelled.
 */
export async function storedConversation(
  db: Db,
  run: RunRow,
  rows: readonly ModelTurnRow[],
): Promise<ConversationTurn[]> {
  const providerIds = rows.flatMap((r) => r.providerCallIds);
  const calls =
    providerIds.length === 0
      ? []
      : await db
          .select()
          .from(toolCalls)
          .where(and(eq(toolCalls.runId, run.id), inArray(toolCalls.providerCallId, providerIds)));
  // An edited call is answered by the call that ran instead, under the model's call id.
  const answering = await answeringCalls(db, calls);
  const byKey = new Map(calls.map((c) => [c.providerCallId!, answering.get(c.id) ?? c]));
  const pending = [...byKey.values()].filter(isOpen);
  if (pending.length > 0) {
    throw conflict(
      `calls still pending: ${pending.map((c) => `${c.id} (${c.status})`).join(', ')}; answer them after they finish`,
      { pending: pending.map((c) => c.id) },
    );
  }
  return rows.map((row) => {
    const turn = assistantTurnOf(row);
    return {
      turn,
      // The turn's keys follow its calls in order; the answer carries the native id.
      calls: callIdsOf(turn).map((providerCallId, i) => {
        const call = byKey.get(row.providerCallIds[i]!);
        const outcome: CallOutcome = call
          ? outcomeOf(call, providerCallId)
          : {
              callId: providerCallId,
              outcome: 'cancelled',
              message: `the run ended (${run.status}) before this call was requested`,
            };
        return { callId: call?.id ?? `unrequested:${providerCallId}`, outcome };
      }),
    };
  });
}
