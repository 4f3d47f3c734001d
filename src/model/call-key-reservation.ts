import { and, eq, inArray, sql } from 'drizzle-orm';
import { runs, toolCalls } from '../calls/tables.js';
import type { Tx } from '../db/tx.js';
import { providerCallKeys } from './provider-call-keys.js';
import { type ModelTurnRow, modelTurns } from './tables.js';

/** Which candidate keys were looked up, and which of those a call of the run already has. */
export interface KnownKeys {
  checked: ReadonlySet<string>;
  taken: ReadonlySet<string>;
}

/**
 * What storing a turn reads under the run's lock, in one statement (it was four, once per agent
 * round): the turn stored with this response hash if any, the run's turn count (the new turn's
 * index) and which of the response's native call ids are taken already.
 */
export async function turnSlot(
  tx: Tx,
  runId: string,
  responseHash: string,
  nativeIds: readonly string[],
): Promise<{ existing: ModelTurnRow | null; count: number; known: KnownKeys }> {
  const ids = [...new Set(nativeIds)].filter((id) => id !== '');
  const taken =
    ids.length === 0
      ? sql`'[]'::jsonb`
      : sql`(select coalesce(jsonb_agg(key), '[]'::jsonb) from (
      ${reservedKeys(tx, runId, ids)} union ${storedKeys(tx, runId, ids)}) as taken)`;
  const [row] = await tx
    .select({
      existing: modelTurns,
      count: sql<number>`(select count(*)::int from ${modelTurns} where ${modelTurns.runId} = ${runId})`,
      taken: sql<string[]>`${taken}`.mapWith((value: unknown) =>
        typeof value === 'string' ? JSON.parse(value) : value,
      ),
    })
    .from(runs)
    .leftJoin(modelTurns, and(eq(modelTurns.runId, runs.id), eq(modelTurns.responseHash, responseHash)))
    .where(eq(runs.id, runId))
    .limit(1);
  return {
    existing: row?.existing ?? null,
    count: row?.count ?? 0,
    known: { checked: new Set(ids), taken: new Set(row?.taken ?? []) },
  };
}

/**
 * Keys for a new turn's calls that no call of the run has. Candidates are checked against the
 * database until none is taken: a suffixed key can be taken too (by an earlier turn whose model
 * sent `call_0#t1`, or a direct request). `known` are keys already looked up (turnSlot's native
 * ids): when those are free, no query is needed. Runs under the run's lock, so no other turn
 * reserves keys meanwhile.
 */
export async function reserveCallKeys(
  tx: Tx,
  runId: string,
  nativeIds: readonly string[],
  turnIndex: number,
  known: KnownKeys = { checked: new Set(), taken: new Set() },
) {
  const checked = new Set(known.checked);
  const taken = new Set(known.taken);
  for (;;) {
    // Never a taken key: providerCallKeys suffixes those, so a key checked here is a free one.
    const keys = providerCallKeys(nativeIds, taken, turnIndex);
    const unchecked = keys.filter((k) => !checked.has(k));
    if (unchecked.length === 0) return keys;
    const clashes = await takenCallKeys(tx, runId, unchecked);
    for (const key of unchecked) checked.add(key);
    for (const key of clashes) taken.add(key);
  }
}

function reservedKeys(tx: Tx, runId: string, ids: readonly string[]) {
  const turnKeys = tx
    .select({ key: sql<string>`jsonb_array_elements_text(${modelTurns.providerCallIds})`.as('key') })
    .from(modelTurns)
    .where(eq(modelTurns.runId, runId))
    .as('turn_keys');
  return tx
    .select({ key: turnKeys.key })
    .from(turnKeys)
    .where(inArray(turnKeys.key, [...ids]));
}

function storedKeys(tx: Tx, runId: string, ids: readonly string[]) {
  return tx
    .select({ key: toolCalls.providerCallId })
    .from(toolCalls)
    .where(and(eq(toolCalls.runId, runId), inArray(toolCalls.providerCallId, [...ids])));
}

/** Which of these ids this run already stores a call under, or reserved for an earlier turn's call. */
async function takenCallKeys(tx: Tx, runId: string, ids: readonly string[]): Promise<Set<string>> {
  const [reserved, stored] = await Promise.all([reservedKeys(tx, runId, ids), storedKeys(tx, runId, ids)]);
  return new Set([...reserved, ...stored].map((r) => r.key!));
}
