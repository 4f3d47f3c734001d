import { and, eq, inArray, sql } from 'drizzle-orm';
import { toolCalls } from '../calls/tables.js';
import type { Tx } from '../db/tx.js';
import { providerCallKeys } from './provider-call-keys.js';
import { modelTurns } from './tables.js';

/**
 * Keys for a new turn's calls that no call of the run has. Candidates are checked against the
 * database until none is taken: a suffixed key can be taken too (by an earlier turn whose model
 * sent `call_0#t1`, or a direct request). Usually the native ids are free and one query does. Runs
 * under the run's lock, so no other turn reserves keys meanwhile.
 */
export async function reserveCallKeys(
  tx: Tx,
  runId: string,
  nativeIds: readonly string[],
  turnIndex: number,
) {
  const taken = new Set<string>();
  for (;;) {
    const keys = providerCallKeys(nativeIds, taken, turnIndex);
    const clashes = [...(await takenCallKeys(tx, runId, keys))].filter((k) => !taken.has(k));
    if (clashes.length === 0) return keys;
    for (const key of clashes) taken.add(key);
  }
}

/** Which of these ids this run already stores a call under, or reserved for an earlier turn's call. */
async function takenCallKeys(tx: Tx, runId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const turnKeys = tx
    .select({ key: sql<string>`jsonb_array_elements_text(${modelTurns.providerCallIds})`.as('key') })
    .from(modelTurns)
    .where(eq(modelTurns.runId, runId))
    .as('turn_keys');
  const [reserved, stored] = await Promise.all([
    tx
      .select({ key: turnKeys.key })
      .from(turnKeys)
      .where(inArray(turnKeys.key, [...ids])),
    tx
      .select({ key: toolCalls.providerCallId })
      .from(toolCalls)
      .where(and(eq(toolCalls.runId, runId), inArray(toolCalls.providerCallId, [...ids]))),
  ]);
  return new Set([...reserved, ...stored].map((r) => r.key!));
}
