import { eq, sql } from 'drizzle-orm';
import type { Principal } from '../../core/auth.js';
import { isUuid } from '../../core/uuid.js';
import type { Db } from '../../db/client.js';
import { prebuilt } from '../../db/prebuilt.js';
import type { Tx } from '../../db/tx.js';
import { assertMayRead } from '../run-service.js';
import { type RunRow, runs, type ToolCallRow, toolCalls } from '../tables.js';

/** The call with this id joined to its run: one statement for both. */
const withRun = (db: Db | Tx, callId: string) =>
  db
    .select({ call: toolCalls, run: runs })
    .from(toolCalls)
    .innerJoin(runs, eq(runs.id, toolCalls.runId))
    .where(eq(toolCalls.id, callId));

/**
 * A call and its run, in one statement, if `principal` may read the run: what reading a call (or
 * deciding one with edited arguments) checks first, without a second round trip for the run.
 */
export async function readableCall(
  db: Db,
  callId: string,
  principal: Principal,
): Promise<{ call: ToolCallRow; run: RunRow } | null> {
  if (!isUuid(callId)) return null;
  const [found] = await withRun(db, callId).limit(1);
  return found && mayRead(principal, found.run) ? found : null;
}

/** Whether `principal` may read the run: a call of a run it may not read does not exist for it. */
export function mayRead(principal: Principal, run: RunRow): boolean {
  try {
    assertMayRead(principal, run);
    return true;
  } catch {
    return false;
  }
}

/**
 * A call and its run at the start of a decision's transaction, the run locked (before the call,
 * as every writer locks them): in one statement, where a read before the transaction and the run's
 * lock in it took two round trips. The call is as it was before its own lock; only what a call
 * never changes (its run, tool, arguments and approval rules) may be judged on it.
 */
export async function lockedCall(tx: Tx, callId: string): Promise<{ call: ToolCallRow; run: RunRow } | null> {
  if (!isUuid(callId)) return null;
  const [found] = await lockedWithRun(tx, { callId });
  return found ?? null;
}

const lockedWithRun = prebuilt((db) =>
  db
    .select({ call: toolCalls, run: runs })
    .from(toolCalls)
    .innerJoin(runs, eq(runs.id, toolCalls.runId))
    .where(eq(toolCalls.id, sql.placeholder('callId')))
    .for('update', { of: runs }),
);

const oneCall = prebuilt((db) =>
  db
    .select()
    .from(toolCalls)
    .where(eq(toolCalls.id, sql.placeholder('callId')))
    .limit(1),
);

/** A call by id, whoever asks (the lifecycle's own reads); null for an id that is not a call's. */
export async function callById(db: Db, callId: string): Promise<ToolCallRow | null> {
  if (!isUuid(callId)) return null;
  const [call] = await oneCall(db, { callId });
  return call ?? null;
}
