import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { Logger } from '../core/logger.js';
import type { Database } from '../db/client.js';

export const JOURNAL_CHANNEL = 'ats_journal';

/**
 * The least time between two of a process's NOTIFYs while its commits keep coming: each is a
 * transaction of its own on Postgres (an id, a commit record, the notification queue's lock) and
 * wakes every other process's bus for a read; under load they cost more than the appends they
 * announce. A commit after a quiet spell is announced at once; one during a burst waits this long
 * at most, well inside the wake-up target between processes (50 ms).
 */
export const NOTIFY_GAP_MS = 5;

/**
 * One per process (server or CLI): after a transaction that appended events commits, it tells the
 * other processes with one NOTIFY of its own, outside any writer's transaction. While that NOTIFY
 * is under way, further commits only ask for one more, sent `NOTIFY_GAP_MS` after it, so a process
 * sends at most one per gap however many writers it has, and writers never queue on Postgres'
 * notification lock.
 * The payload is this process's id only: a listener reads the rows, and skips its own echoes
 * (its bus already woke at the commit itself).
 *
 * A NOTIFY that never goes out (the process dies between the commit and it) is covered by the
 * readers' slow safety read and by the read every bus makes when its LISTEN is (re-)established.
 * PGlite is one process's database, so nothing is sent there.
 */
export class JournalAnnouncer {
  readonly origin = randomUUID();
  private sending: Promise<void> | null = null;
  private again = false;
  private readonly off: () => void;

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
  ) {
    this.off =
      database.driver === 'postgres' ? database.onCommit('journal', () => this.announce()) : () => {};
  }

  /** Sends one NOTIFY now, or one more a gap after the one under way (which may have gone out before this commit). */
  announce(): Promise<void> {
    if (this.sending) {
      this.again = true;
      return this.sending;
    }
    this.sending = (async () => {
      try {
        do {
          this.again = false;
          const sent = performance.now();
          await this.database.db.execute(sql`select pg_notify(${JOURNAL_CHANNEL}, ${this.origin})`);
          const wait = sent + NOTIFY_GAP_MS - performance.now();
          if (this.again && wait > 0) await sleep(wait);
        } while (this.again);
      } catch (error) {
        this.logger.warn(
          { err: error },
          'telling other processes about new journal events failed; their safety read finds them',
        );
      } finally {
        this.sending = null;
      }
    })();
    return this.sending;
  }

  stop(): void {
    this.off();
  }
}
