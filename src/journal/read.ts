import { and, asc, eq, gt, type SQL } from 'drizzle-orm';
import type { JournalEvent } from '../core/journal-event.js';
import type { Executor } from '../db/tx.js';
import { eventOf } from './append.js';
import { journalEvents } from './tables.js';

export interface JournalFilter {
  runId?: string | null;
  callId?: string | null;
}

export function matchesFilter(event: JournalEvent, filter: JournalFilter): boolean {
  return (
    (!filter.runId || event.runId === filter.runId) && (!filter.callId || event.callId === filter.callId)
  );
}

/** Events after a position, in order; `where` narrows them further (a reader's scope). */
export async function readEvents(
  db: Executor,
  filter: JournalFilter & { afterSeq?: bigint | null; limit: number; where?: SQL },
): Promise<JournalEvent[]> {
  const conditions: SQL[] = [];
  if (filter.where) conditions.push(filter.where);
  if (filter.runId) conditions.push(eq(journalEvents.runId, filter.runId));
  if (filter.callId) conditions.push(eq(journalEvents.callId, filter.callId));
  if (filter.afterSeq != null) conditions.push(gt(journalEvents.seq, filter.afterSeq));
  const rows = await db
    .select()
    .from(journalEvents)
    .where(and(...conditions))
    .orderBy(asc(journalEvents.seq))
    .limit(filter.limit);
  return rows.map(eventOf);
}
