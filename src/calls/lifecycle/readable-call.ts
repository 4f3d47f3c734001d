import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Principal } from '../../core/auth.js';
import type { Db } from '../../db/client.js';
import { assertMayRead } from '../run-service.js';
import { type RunRow, runs, type ToolCallRow, toolCalls } from '../tables.js';

/**
 * A call and its run, in one statement, if `principal` may read the run: what reading or
 * deciding a call checks first, without a second round trip for the run.
 */
export async function readableCall(
  db: Db,
  callId: string,
  principal: Principal,
): Promise<{ call: ToolCallRow; run: RunRow } | null> {
  if (!z.uuid().safeParse(callId).success) return null;
  const [found] = await db
    .select({ call: toolCalls, run: runs })
    .from(toolCalls)
    .innerJoin(runs, eq(runs.id, toolCalls.runId))
    .where(eq(toolCalls.id, callId))
    .limit(1);
  if (!found) return null;
  try {
    assertMayRead(principal, found.run);
  } catch {
    return null;
  }
  return found;
}

/** A call by id, whoever asks (the lifecycle's own reads); null for an id that is not a call's. */
export async function callById(db: Db, callId: string): Promise<ToolCallRow | null> {
  if (!z.uuid().safeParse(callId).success) return null;
  const [call] = await db.select().from(toolCalls).where(eq(toolCalls.id, callId)).limit(1);
  return call ?? null;
}
