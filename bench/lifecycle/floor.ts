import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Database } from '../../src/db/client.js';
import { runs, toolCalls } from '../../src/db/schema.js';
import type { Tx } from '../../src/db/tx.js';
import { appendEvents, journaledTransaction } from '../../src/journal/append.js';

/**
 * The raw-SQL floors of a call's transitions: the same rows and journal events the runtime writes,
 * as plain Drizzle statements with nothing else (no policy, no validation, no GraphQL, no HTTP).
 */

const result = (callId: string) => ({
  callId,
  content: [],
  structured: null,
  isError: false,
  resourceRefs: [],
  usage: null,
});
const newCall = (runId: string, status: 'REQUESTED' | 'AWAITING_APPROVAL' | 'COMPLETED') => ({
  runId,
  name: 'bench.noop',
  arguments: {},
  argumentsHash: 'x',
  status,
  requestedBy: 'bench',
  countsAgainstBudget: true,
});
const lockRun = (tx: Tx, runId: string) => tx.select().from(runs).where(eq(runs.id, runId)).for('update');
const event = (type: Parameters<typeof appendEvents>[1][number]['type'], runId: string, callId: string) => ({
  type,
  runId,
  callId,
  actor: 'bench',
  payload: {},
});

/** Today's shape of an auto-approved call: request, start and complete, one transaction each. */
export async function threeTransactionCall(database: Database, runId: string) {
  const db = database.db;
  const callId = await db.transaction(async (tx) => {
    await lockRun(tx, runId);
    const [call] = await tx
      .insert(toolCalls)
      .values(newCall(runId, 'REQUESTED'))
      .returning({ id: toolCalls.id });
    await appendEvents(tx, [event('tool_call_requested', runId, call!.id)]);
    return call!.id;
  });
  await db.transaction(async (tx) => {
    await tx
      .update(toolCalls)
      .set({ status: 'STARTED', leaseOwner: 'bench', startedAt: new Date() })
      .where(eq(toolCalls.id, callId));
    await appendEvents(tx, [event('tool_call_started', runId, callId)]);
  });
  await db.transaction(async (tx) => {
    await lockRun(tx, runId);
    await tx
      .update(toolCalls)
      .set({ status: 'COMPLETED', result: result(callId), finishedAt: new Date() })
      .where(eq(toolCalls.id, callId));
    await appendEvents(tx, [event('tool_call_completed', runId, callId)]);
  });
}

/** The least an auto-approved call can cost (issue 16's target shape): one transaction, one row, three events. */
export async function oneTransactionCall(database: Database, runId: string) {
  await database.db.transaction(async (tx) => {
    await lockRun(tx, runId);
    // The id is made here so that the row is inserted whole, result included (no insert-then-update).
    const callId = randomUUID();
    const now = new Date();
    await tx.insert(toolCalls).values({
      ...newCall(runId, 'COMPLETED'),
      id: callId,
      startedAt: now,
      result: result(callId),
      finishedAt: now,
    });
    await appendEvents(tx, [
      event('tool_call_requested', runId, callId),
      event('tool_call_started', runId, callId),
      event('tool_call_completed', runId, callId),
    ]);
  });
}

/**
 * The least an approved call can cost: one transaction for the request (the call awaiting approval
 * and its two events), one for decision, dispatch and result (one update, three events). Both are
 * journaled transactions, as the request's and the approval's are: the events go out last, with
 * the commit.
 */
export async function twoTransactionApprovedCall(database: Database, runId: string) {
  const db = database.db;
  const callId = await journaledTransaction(db, async (tx) => {
    await lockRun(tx, runId);
    const [call] = await tx
      .insert(toolCalls)
      .values({ ...newCall(runId, 'AWAITING_APPROVAL'), approvalRequired: true })
      .returning({ id: toolCalls.id });
    await appendEvents(tx, [
      event('tool_call_requested', runId, call!.id),
      event('tool_call_awaiting_approval', runId, call!.id),
    ]);
    return call!.id;
  });
  await journaledTransaction(db, async (tx) => {
    await lockRun(tx, runId);
    const decidedAt = new Date();
    await tx
      .update(toolCalls)
      .set({
        status: 'COMPLETED',
        decision: {
          approved: true,
          decidedBy: 'bench',
          reason: null,
          decidedAt: decidedAt.toISOString(),
          argumentsHash: 'x',
        },
        startedAt: decidedAt,
        result: result(callId),
        finishedAt: new Date(),
      })
      .where(eq(toolCalls.id, callId));
    await appendEvents(tx, [
      event('tool_call_approved', runId, callId),
      event('tool_call_started', runId, callId),
      event('tool_call_completed', runId, callId),
    ]);
  });
}
