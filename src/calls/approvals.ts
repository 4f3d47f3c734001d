import { and, eq, lt, or, sql } from 'drizzle-orm';
import { actorOf, type Principal } from '../core/auth.js';
import { approvalDenied, approvalExpired, errorResult } from '../core/call-results.js';
import { conflict } from '../core/errors.js';
import type { NewJournalEvent } from '../core/journal-event.js';
import type { Db } from '../db/client.js';
import { appendEvents } from '../journal/append.js';
import { type DecisionRecord, toolCalls } from './tables.js';
import type { ToolCallRow } from './tool-call-service.js';

export interface DecideInput {
  reason?: string | null;
  /** The hash of the arguments the approver saw; a mismatch is refused. */
  argumentsHash?: string | null;
}

/**
 * Exactly one decision counts: the update only matches while the call still awaits approval,
 * so of two concurrent deciders one gets the row and the other a CONFLICT, and nothing changes.
 */
export async function recordApproval(
  db: Db,
  current: ToolCallRow,
  approved: boolean,
  input: DecideInput,
  principal: Principal,
): Promise<ToolCallRow> {
  const callId = current.id;
  if (input.argumentsHash && input.argumentsHash !== current.argumentsHash) {
    throw conflict('the arguments changed since you saw them; review the call again', {
      argumentsHash: current.argumentsHash,
    });
  }
  const actor = actorOf(principal);
  const decision: DecisionRecord = {
    approved,
    decidedBy: actor,
    reason: input.reason ?? null,
    decidedAt: new Date().toISOString(),
    argumentsHash: current.argumentsHash,
  };
  const decided = await db.transaction(async (tx) => {
    const notExpired = or(
      sql`${toolCalls.approvalExpiresAt} is null`,
      sql`${toolCalls.approvalExpiresAt} > now()`,
    );
    const error = approved ? null : approvalDenied(current.name, actor, input.reason ?? null);
    const [row] = await tx
      .update(toolCalls)
      .set(
        approved
          ? { status: 'APPROVED', decision }
          : {
              status: 'DENIED',
              decision,
              error,
              result: errorResult(callId, error!),
              finishedAt: new Date(),
            },
      )
      .where(and(eq(toolCalls.id, callId), eq(toolCalls.status, 'AWAITING_APPROVAL'), notExpired))
      .returning();
    if (!row) return null;
    await appendEvents(tx, [
      {
        type: approved ? 'tool_call_approved' : 'tool_call_denied',
        runId: row.runId,
        callId,
        actor,
        payload: { reason: decision.reason, argumentsHash: decision.argumentsHash },
      },
    ]);
    return row;
  });
  if (!decided) {
    const [now] = await db.select().from(toolCalls).where(eq(toolCalls.id, callId)).limit(1);
    throw conflict(`tool call ${callId} is no longer awaiting approval (it is ${now!.status})`, {
      status: now!.status,
    });
  }
  return decided;
}

/** Pending approvals whose time ran out count as denied with reason `expired`. */
export function expireApprovals(db: Db): Promise<number> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(toolCalls)
      .where(and(eq(toolCalls.status, 'AWAITING_APPROVAL'), lt(toolCalls.approvalExpiresAt, new Date())))
      .for('update', { skipLocked: true });
    const events: NewJournalEvent[] = [];
    for (const call of due) {
      const error = approvalExpired(call.name);
      const decision: DecisionRecord = {
        approved: false,
        decidedBy: 'system',
        reason: 'expired',
        decidedAt: new Date().toISOString(),
        argumentsHash: call.argumentsHash,
      };
      await tx
        .update(toolCalls)
        .set({
          status: 'DENIED',
          decision,
          error,
          result: errorResult(call.id, error),
          finishedAt: new Date(),
        })
        .where(eq(toolCalls.id, call.id));
      events.push({
        type: 'tool_call_denied',
        runId: call.runId,
        callId: call.id,
        actor: 'system',
        payload: { reason: 'expired' },
      });
    }
    await appendEvents(tx, events);
    return due.length;
  });
}
