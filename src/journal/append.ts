import { sql } from 'drizzle-orm';
import { type JournalEvent, MAX_PAYLOAD_BYTES, type NewJournalEvent } from '../core/journal-event.js';
import { cutAt } from '../core/unicode.js';
import type { Db } from '../db/client.js';
import { touch } from '../db/commits.js';
import { awaitWithCommit } from '../db/pipelined-begin.js';
import type { Executor, Tx } from '../db/tx.js';
import type { journalEvents } from './tables.js';

/** Top-level fields this small survive a cut payload: they say what the event is about. */
const KEPT_FIELD_BYTES = 256;
const KEPT_FIELDS_TOTAL_BYTES = 2048;

function boundedPayload(event: NewJournalEvent): Record<string, unknown> {
  const text = JSON.stringify(event.payload);
  if (Buffer.byteLength(text, 'utf8') <= MAX_PAYLOAD_BYTES) return event.payload;
  // A payload this large is a bug in the caller (it should have stored a resource); keep the
  // journal bounded and say what was cut rather than failing the state change it records. Its
  // small fields (names, ids, an action) stay, since readers such as other processes act on them.
  const kept: Record<string, unknown> = {};
  let budget = KEPT_FIELDS_TOTAL_BYTES;
  for (const [key, value] of Object.entries(event.payload)) {
    if (value !== null && typeof value === 'object') continue;
    const bytes = Buffer.byteLength(JSON.stringify({ [key]: value }), 'utf8');
    if (bytes > KEPT_FIELD_BYTES || bytes > budget) continue;
    kept[key] = value;
    budget -= bytes;
  }
  return {
    ...kept,
    truncated: true,
    originalBytes: Buffer.byteLength(text, 'utf8'),
    preview: cutAt(text, 1024),
  };
}

/**
 * Events appended on a transaction that holds its journal (see `journaledTransaction`) wait here
 * and are written by its last statement, in one round trip.
 */
const held = new WeakMap<object, NewJournalEvent[]>();

/**
 * Appends events inside the caller's transaction. Their positions come from the transaction's id
 * (`ats_journal_positions`, migration 0019): unique without a lock that writers queue on, and in
 * order within the transaction. They are not in commit order across transactions, so readers
 * that resume from a position read below the horizon (`read.ts`). One statement: positions and
 * rows are one round trip. No NOTIFY here: one in every writing transaction would serialise the
 * cluster's commits on Postgres' notification queue lock; the transaction is marked instead, and
 * after its commit this process wakes its own bus and tells the others (`announce.ts`).
 */
export async function appendEvents(tx: Executor, events: NewJournalEvent[]): Promise<void> {
  const waiting = held.get(tx);
  if (waiting) {
    waiting.push(...events);
    return;
  }
  await writeEvents(tx, events);
}

async function writeEvents(tx: Executor, events: NewJournalEvent[]): Promise<void> {
  const written = eventsStatement(tx, events);
  if (!written) return;
  await written;
  touch('journal');
}

/**
 * The statement that writes `events`, made (handed to its connection) before this returns, as
 * `awaitWithCommit` needs; null when there are none.
 */
function eventsStatement(tx: Executor, events: NewJournalEvent[]): Promise<unknown> | null {
  if (events.length === 0) return null;
  const rows = events.map((event) => ({
    type: event.type,
    run_id: event.runId ?? null,
    call_id: event.callId ?? null,
    actor: event.actor,
    payload: boundedPayload(event),
  }));
  // Drizzle's query runs when `then` is called (each time it is): once, here.
  return tx
    .execute(sql`
    with first as (
      select ats_journal_positions(${events.length}) as seq
    )
    insert into journal_events (seq, type, run_id, call_id, actor, payload)
    select first.seq + e.position - 1, e.type, e.run_id, e.call_id, e.actor, e.payload
    from first,
      rows from (jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as (type text, run_id uuid, call_id uuid, actor text, payload jsonb))
      with ordinality as e(type, run_id, call_id, actor, payload, position)`)
    .then(() => undefined);
}

/**
 * A transaction whose journal events are all written at its end, in the order they were
 * appended. Nested transactions (savepoints) opened through `journaledSavepoint` keep their
 * events only if they commit.
 */
export function journaledTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    held.set(tx, []);
    const result = await work(tx);
    const events = held.get(tx)!;
    held.delete(tx);
    // On Postgres the COMMIT goes out behind the events without waiting for them (its outcome
    // still does): the last statement and the commit are one round trip.
    if (events.length === 0) return result;
    const written = awaitWithCommit(() => eventsStatement(tx, events)!);
    if (written) await written;
    // Marked before the commit it may go out with: its listeners run only once the transaction
    // has committed, which it does not if the events failed.
    touch('journal');
    return result;
  });
}

/** A savepoint inside `tx`; its held events join `tx`'s when it commits and vanish when it rolls back. */
export function journaledSavepoint<T>(tx: Tx, work: (savepoint: Tx) => Promise<T>): Promise<T> {
  const parent = held.get(tx);
  return tx.transaction(async (savepoint) => {
    if (parent) held.set(savepoint, []);
    const result = await work(savepoint);
    if (parent) parent.push(...held.get(savepoint)!);
    return result;
  });
}

export function eventOf(row: typeof journalEvents.$inferSelect): JournalEvent {
  return {
    seq: row.seq,
    type: row.type,
    runId: row.runId,
    callId: row.callId,
    actor: row.actor,
    payload: row.payload,
    at: row.at,
  };
}
