import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { toolCalls, tools } from '../../calls/tables.js';
import { actorOf, type Principal } from '../../core/auth.js';
import { badInput, conflict, notFound } from '../../core/errors.js';
import { type ValidationIssue, validateAgainst } from '../../core/json-schema.js';
import { parseInput } from '../../core/parse-input.js';
import type { Db } from '../../db/client.js';
import type { Tx } from '../../db/tx.js';
import { appendEvents } from '../../journal/append.js';
import type { InvocationRow } from './invocations.js';
import {
  answerOf,
  type BridgeInvocationStatus,
  type ExtensionAnswer,
  extensionAnswerSchema,
} from './rules/extension-tool.js';
import { signal } from './signals.js';
import { bridgeInvocations } from './tables.js';
import { extensionOf } from './tools.js';

type Verdict =
  | { kind: 'answered'; row: InvocationRow }
  | { kind: 'unknown' }
  | { kind: 'ended'; status: BridgeInvocationStatus; reason: string }
  | { kind: 'invalid'; issues: ValidationIssue[] };

const rejectionReasons: Record<Exclude<BridgeInvocationStatus, 'PENDING'>, string> = {
  ANSWERED: 'already_answered',
  TIMED_OUT: 'late',
  DISCONNECTED: 'call_ended',
  CANCELLED: 'call_ended',
};

/**
 * `answerExtensionInvocation`, in whichever process receives it. Everything is decided in one
 * transaction holding the invocation's row lock, and the answer lands only while the invocation is
 * still PENDING: of an answer and a timeout (or a second answer) exactly one wins. Every refused
 * answer to a real call is journaled as `bridge_answer_rejected` and never applied.
 */
export class ExtensionAnswerService {
  constructor(private readonly db: Db) {}

  async answer(callId: string, raw: unknown, principal: Principal): Promise<InvocationRow> {
    const extensionId = extensionOf(principal);
    const answer = answerOf(parseInput(extensionAnswerSchema, raw));
    if (!z.uuid().safeParse(callId).success) throw notFound(`no invocation ${callId} for this extension`);
    const actor = actorOf(principal);

    const verdict = await this.db.transaction(async (tx): Promise<Verdict> => {
      const [row] = await tx
        .select()
        .from(bridgeInvocations)
        .where(eq(bridgeInvocations.callId, callId))
        .for('update');
      if (!row) return { kind: 'unknown' };
      const reject = (reason: string, details: Record<string, unknown> = {}) =>
        appendEvents(tx, [
          {
            type: 'bridge_answer_rejected',
            runId: row.runId,
            callId,
            actor,
            payload: { reason, extensionId, status: row.status, ...details },
          },
        ]);
      // Another extension's call: recorded, and answered exactly as if it did not exist.
      if (row.extensionId !== extensionId) {
        await reject('not_owner');
        return { kind: 'unknown' };
      }
      if (row.status !== 'PENDING') {
        const reason = rejectionReasons[row.status];
        await reject(reason);
        return { kind: 'ended', status: row.status, reason };
      }
      const ended = await this.endedStatus(tx, row);
      if (ended) {
        await settle(tx, callId, ended);
        const reason = rejectionReasons[ended];
        await reject(reason);
        return { kind: 'ended', status: ended, reason };
      }
      const issues = await this.outputIssues(tx, row.toolName, answer);
      if (issues.length > 0) {
        await reject('invalid_output', { issues: issues.slice(0, 10) });
        return { kind: 'invalid', issues };
      }
      const [answered] = await tx
        .update(bridgeInvocations)
        .set({ status: 'ANSWERED', answer, answeredBy: actor, finishedAt: new Date() })
        .where(and(eq(bridgeInvocations.callId, callId), eq(bridgeInvocations.status, 'PENDING')))
        .returning();
      await signal(tx, { kind: 'settled', callId });
      return { kind: 'answered', row: answered! };
    });

    switch (verdict.kind) {
      case 'answered':
        return verdict.row;
      case 'unknown':
        throw notFound(`no invocation ${callId} for this extension`);
      case 'ended':
        throw conflict(`invocation ${callId} is no longer waiting for an answer (${verdict.reason})`, {
          status: verdict.status,
          reason: verdict.reason,
        });
      case 'invalid':
        throw badInput(
          `the result does not match the output schema of the tool: ${verdict.issues.map((i) => `${i.path} ${i.message}`).join('; ')}; the call still waits for a valid answer until its deadline`,
          { issues: verdict.issues },
        );
    }
  }

  /** A pending row whose deadline passed, or whose call already ended elsewhere (its process died). */
  private async endedStatus(tx: Tx, row: InvocationRow): Promise<'TIMED_OUT' | 'CANCELLED' | null> {
    if (row.deadline.getTime() <= Date.now()) return 'TIMED_OUT';
    const [call] = await tx
      .select({ status: toolCalls.status })
      .from(toolCalls)
      .where(eq(toolCalls.id, row.callId));
    return call?.status === 'STARTED' ? null : 'CANCELLED';
  }

  /** Checked against the tool as it is now; an error result need not match (MCP does the same). */
  private async outputIssues(tx: Tx, toolName: string, answer: ExtensionAnswer): Promise<ValidationIssue[]> {
    if (answer.isError) return [];
    const [tool] = await tx
      .select({ outputSchema: tools.outputSchema })
      .from(tools)
      .where(eq(tools.name, toolName));
    if (!tool?.outputSchema) return [];
    if (answer.structured === null)
      return [{ path: 'structured', message: 'is required: the tool declares an output schema' }];
    return validateAgainst(tool.outputSchema, answer.structured);
  }
}

async function settle(tx: Tx, callId: string, status: 'TIMED_OUT' | 'CANCELLED'): Promise<void> {
  await tx
    .update(bridgeInvocations)
    .set({ status, finishedAt: new Date() })
    .where(eq(bridgeInvocations.callId, callId));
  await signal(tx, { kind: 'settled', callId });
}
