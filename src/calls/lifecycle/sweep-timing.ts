import { type AnyColumn, type SQL, sql } from 'drizzle-orm';
import type { JournalEvent } from '../../core/journal-event.js';
import type { Logger } from '../../core/logger.js';
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/tx.js';
import { toolCalls } from '../tables.js';

const c = toolCalls;
const min = (column: AnyColumn) => sql`min(${column})`;
const epochMs = (value: SQL) => sql`(extract(epoch from ${value}) * 1000)::float8`;

export interface DueOptions {
  orphanAfterMs: number;
  approvalExpiryWarningMs: number;
  leaseMs: number;
}

/**
 * When the dispatcher's sweep next has work, in epoch milliseconds (null: nothing is waiting): an
 * approved call no one runs (now), a ready call its requester may have lost, a pending call's
 * warning or expiry, a lease running out. One read over the sweeps' partial indexes, so an idle
 * process looks for work without a transaction that writes. Warnings that fell due before
 * `sweptFrom` (the start of the last sweep, which sent them) are left out.
 */
export async function nextDue(db: Db, options: DueOptions, sweptFrom: number): Promise<number | null> {
  const warnAfter = new Date(sweptFrom + options.approvalExpiryWarningMs).toISOString();
  const [row] = rowsOf<Record<string, number | null>>(
    await db.execute(sql`
      select
        (select ${epochMs(min(c.requestedAt))} from ${toolCalls} where ${c.status} = 'APPROVED') as approved,
        (select ${epochMs(min(c.requestedAt))} from ${toolCalls} where ${c.status} = 'REQUESTED') as requested,
        (select ${epochMs(min(c.approvalExpiresAt))} from ${toolCalls}
          where ${c.status} = 'AWAITING_APPROVAL') as expires,
        (select ${epochMs(min(c.approvalExpiresAt))} from ${toolCalls}
          where ${c.status} = 'AWAITING_APPROVAL' and ${c.approvalExpiresAt} > ${warnAfter}::timestamptz) as warns,
        (select ${epochMs(min(c.leaseExpiresAt))} from ${toolCalls} where ${c.status} = 'STARTED') as lease`),
  );
  const candidates = [
    row?.approved == null ? null : 0,
    row?.requested == null ? null : Number(row.requested) + options.orphanAfterMs,
    row?.expires == null ? null : Number(row.expires),
    row?.warns == null || options.approvalExpiryWarningMs <= 0
      ? null
      : Number(row.warns) - options.approvalExpiryWarningMs,
    row?.lease == null ? null : Number(row.lease),
  ].filter((at): at is number => at !== null);
  return candidates.length === 0 ? null : Math.min(...candidates);
}

/**
 * When an event says work falls due (epoch ms), as far as the event tells: a pending call's
 * warning, a requested call's orphan time, a lease's end, a requeued call at once. The safety
 * read (`nextDue`) finds anything an event did not say, later.
 */
export function dueFromEvent(event: JournalEvent, options: DueOptions): number | null {
  const at = event.at.getTime();
  switch (event.type) {
    case 'tool_call_awaiting_approval': {
      const expiresAt = event.payload.expiresAt;
      if (typeof expiresAt !== 'string') return null;
      return Date.parse(expiresAt) - Math.max(0, options.approvalExpiryWarningMs);
    }
    case 'tool_call_requested':
      return at + options.orphanAfterMs;
    case 'tool_call_started':
      return at + options.leaseMs;
    case 'tool_call_requeued':
      return at;
    default:
      return null;
  }
}

/**
 * One timer for the earliest known due time: `at` moves it earlier, never later (a later time is
 * found again by the read that follows each sweep).
 */
export class DueTimer {
  private timer: NodeJS.Timeout | null = null;
  private armedFor = Number.POSITIVE_INFINITY;

  constructor(private readonly fire: () => void) {}

  at(when: number): void {
    if (when >= this.armedFor) return;
    this.clear();
    this.armedFor = when;
    // setTimeout holds at most ~24.8 days; a later due time is re-read long before.
    const delay = Math.min(Math.max(0, when - Date.now()), 2 ** 31 - 1);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.armedFor = Number.POSITIVE_INFINITY;
      this.fire();
    }, delay);
    this.timer.unref();
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedFor = Number.POSITIVE_INFINITY;
  }
}

export interface SweepScheduleDeps {
  db: Db;
  logger: Logger;
  options: DueOptions & { pollMs: number };
  sweep: () => Promise<void>;
}

/**
 * When the dispatcher sweeps: at each due time the journal's events announce (every process sees
 * them), and when the read every poll finds work due that no event announced (a process that died
 * before its requester dispatched, a deadline set before this process started). Idle, that is one
 * read-only statement a poll instead of a sweep's transactions.
 */
export class SweepSchedule {
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  /** When the last sweep started: the warnings due before it were sent by it. */
  private sweptFrom = 0;
  private stopped = false;
  private readonly due = new DueTimer(() => void this.check());

  constructor(private readonly deps: SweepScheduleDeps) {}

  start(): void {
    this.stopped = false;
    void this.check();
    this.timer = setInterval(() => void this.check(), this.deps.options.pollMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.due.clear();
  }

  /** The dispatcher says a sweep starts now (its own, or one a caller asked for). */
  sweeping(): void {
    this.sweptFrom = Date.now();
  }

  onEvents(events: JournalEvent[]): void {
    if (this.stopped) return;
    for (const event of events) {
      const due = dueFromEvent(event, this.deps.options);
      if (due !== null) this.due.at(due);
    }
  }

  /** Reads when work next falls due; sweeps if it has, then waits for the next due time. */
  check(): Promise<void> {
    if (this.checking || this.stopped) return this.checking ?? Promise.resolve();
    this.checking = (async () => {
      try {
        const { db, options } = this.deps;
        let due = await nextDue(db, options, this.sweptFrom);
        if (due !== null && due <= Date.now()) {
          await this.deps.sweep();
          due = await nextDue(db, options, this.sweptFrom);
        }
        // Still due after a sweep (a row another process holds): the next poll tries again.
        if (due !== null && due > Date.now() && !this.stopped) this.due.at(due);
      } catch (error) {
        this.deps.logger.error({ err: error }, 'dispatcher schedule check failed; the next poll retries');
      } finally {
        this.checking = null;
      }
    })();
    return this.checking;
  }
}
