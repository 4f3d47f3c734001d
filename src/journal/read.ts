import { and, asc, eq, getTableColumns, gt, lt, type SQL, sql } from 'drizzle-orm';
import type { JournalEvent } from '../core/journal-event.js';
import { type Executor, rowsOf } from '../db/tx.js';
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

/**
 * A page of the journal that a reader may resume after: every event below the horizon, in order.
 * Positions follow transactions, not commits, so a committed event above the horizon may still
 * get an older neighbour (a transaction begun before its own is still running); it is left out,
 * and `unsettled` says so, so that the reader reads again shortly instead of skipping that
 * neighbour when it commits.
 */
export interface JournalPage {
  events: JournalEvent[];
  unsettled: boolean;
}

export interface ReadOptions extends JournalFilter {
  afterSeq?: bigint | null;
  limit: number;
  /** Narrows the events further (a reader's scope). */
  where?: SQL;
  /** A horizon the caller read before (everything below it is final): used instead of the statement's. */
  before?: bigint;
  /**
   * Positions up to here are known final (a reader already got them below an earlier horizon). The
   * statement's own horizon can be lower than an earlier one, when a transaction of another
   * database counted only because it ended between the snapshot and the read of pg_stat_activity.
   */
  settledThrough?: bigint;
  /** A one-off lookup nobody resumes from (a call's events): every committed event, no horizon. */
  unbounded?: boolean;
}

/** Events after a position, in order, up to the horizon (or `before`). */
export async function readEvents(db: Executor, filter: ReadOptions): Promise<JournalPage> {
  const conditions: SQL[] = [];
  if (filter.where) conditions.push(filter.where);
  if (filter.runId) conditions.push(eq(journalEvents.runId, filter.runId));
  if (filter.callId) conditions.push(eq(journalEvents.callId, filter.callId));
  if (filter.afterSeq != null) conditions.push(gt(journalEvents.seq, filter.afterSeq));
  if (filter.before != null) conditions.push(lt(journalEvents.seq, filter.before));
  if (filter.before != null || filter.unbounded) {
    const rows = await db
      .select()
      .from(journalEvents)
      .where(and(...conditions))
      .orderBy(asc(journalEvents.seq))
      .limit(filter.limit);
    return { events: rows.map(eventOf), unsettled: false };
  }
  const rows = await db
    .select({
      ...getTableColumns(journalEvents),
      // Uncorrelated: evaluated once per statement, in the snapshot the rows are read in.
      horizon: sql<string>`(select ats_journal_horizon())::text`,
    })
    .from(journalEvents)
    .where(and(...conditions))
    .orderBy(asc(journalEvents.seq))
    .limit(filter.limit);
  const horizon = rows.length > 0 ? BigInt(rows[0]!.horizon) : 0n;
  const through = filter.settledThrough ?? -1n;
  const settled = rows.filter((row) => row.seq < horizon || row.seq <= through);
  // Both bounds hold for every smaller position too, so the settled rows are a prefix of the page.
  return { events: settled.map(eventOf), unsettled: settled.length < rows.length };
}

/** The lowest position a transaction still running may yet write: everything below it is final. */
export async function journalHorizon(db: Executor): Promise<bigint> {
  const [row] = rowsOf<{ horizon: string }>(
    await db.execute(sql`select ats_journal_horizon()::text as horizon`),
  );
  return BigInt(row!.horizon);
}

/**
 * Where a reader starting now stands: it has "read" every position below the horizon and the
 * committed events above it, so it gets exactly the events committed from now on.
 */
export interface JournalCursor {
  afterSeq: bigint;
  seen: ReadonlySet<bigint>;
}

export async function journalNow(db: Executor): Promise<JournalCursor> {
  const [row] = rowsOf<{ horizon: string; seen: string[] | string }>(
    await db.execute(sql`
      with h as (select ats_journal_horizon() as v)
      select (select v from h)::text as horizon,
        array(select seq::text from journal_events where seq >= (select v from h) order by seq) as seen`),
  );
  return { afterSeq: BigInt(row!.horizon) - 1n, seen: new Set(textArray(row!.seen).map(BigInt)) };
}

/** postgres.js parses a text[] column; PGlite may hand back its literal. */
function textArray(value: string[] | string): string[] {
  if (Array.isArray(value)) return value;
  const inner = value.slice(1, -1);
  return inner === '' ? [] : inner.split(',');
}
