import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Logger } from '../core/logger.js';
import type { Database } from '../db/client.js';

export const JOURNAL_CHANNEL = 'ats_journal';

/**
 * One per process (server or CLI): after a transaction that appended events commits, it tells the
 * other processes with one NOTIFY of its own, outside any writer's transaction. While that NOTIFY
 * is under way, further commits only ask for one more, sent as soon as it is answered, so a
 * process has at most one in flight however many writers it has, and writers never queue on
 * Postgres' notification lock. (A fixed gap between them, tried, coalesced more under load but
 * delayed every wake-up of a sequential flow such as the agent loop by up to the gap.)
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

  /** Sends one NOTIFY now, or one more after the one under way (which may have gone out before this commit). */
  announce(): Promise<void> {
    if (this.sending) {
      this.again = true;
      return this.sending;
    }
    this.sending = (async () => {
      try {
        do {
          this.again = false;
          await this.database.db.execute(sql`select pg_notify(${JOURNAL_CHANNEL}, ${this.origin})`);
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
