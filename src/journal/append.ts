import { sql } from 'drizzle-orm';
import { type JournalEvent, MAX_PAYLOAD_BYTES, type NewJournalEvent } from '../core/journal-event.js';
import { cutAt } from '../core/unicode.js';
import { type Executor, rowsOf } from '../db/tx.js';
import { journalEvents } from './tables.js';

export const JOURNAL_CHANNEL = 'ats_journal';

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
 * Appends events inside the caller's transaction. Positions come from a counter row whose lock
 * is held until commit, so positions are gap-free and commit in order: a reader that has seen N
 * has seen everything before N. The NOTIFY (position only) is delivered at commit.
 */
export async function appendEvents(tx: Executor, events: NewJournalEvent[]): Promise<JournalEvent[]> {
  if (events.length === 0) return [];
  const [counter] = rowsOf<{ last_seq: string | number | bigint }>(
    await tx.execute(sql`
      insert into journal_counter (id, last_seq) values (true, ${events.length})
      on conflict (id) do update set last_seq = journal_counter.last_seq + excluded.last_seq
      returning last_seq`),
  );
  const last = BigInt(counter!.last_seq);
  const first = last - BigInt(events.length) + 1n;
  const rows = await tx
    .insert(journalEvents)
    .values(
      events.map((event, i) => ({
        seq: first + BigInt(i),
        type: event.type,
        runId: event.runId ?? null,
        callId: event.callId ?? null,
        actor: event.actor,
        payload: boundedPayload(event),
      })),
    )
    .returning();
  await tx.execute(sql`select pg_notify(${JOURNAL_CHANNEL}, ${last.toString()})`);
  return rows.map(eventOf);
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
