import type { JournalEvent } from '../../core/journal-event.js';
import type { Logger } from '../../core/logger.js';
import type { Db } from '../../db/client.js';
import type { JournalBus } from '../../journal/bus.js';
import { claimDue, type DeliveryOptions, recordAttempt, send } from './deliver.js';
import { enqueueFromJournal, ensureCursor } from './enqueue.js';
import type { ApprovalLinks } from './links.js';
import { DEFAULT_NOTIFICATION_RETRY } from './rules/backoff.js';
import { kindOf } from './rules/events.js';

export interface NotifierOptions extends DeliveryOptions {
  /** How often the outbox is looked at without a journal event (retries come due, other processes' events). */
  pollMs: number;
  /** The clock deliveries are scheduled by; tests step it to make back-off observable. */
  now: () => Date;
}

export const defaultNotifierOptions: NotifierOptions = {
  retry: DEFAULT_NOTIFICATION_RETRY,
  timeoutMs: 10_000,
  claimMs: 60_000,
  batch: 20,
  pollMs: 2_000,
  now: () => new Date(),
};

/**
 * The background half of notifications: the journal is the queue's source (a stored cursor, so a
 * restart misses nothing), the deliveries table is the queue (durable, retried with back-off), and
 * any number of processes may sweep at once without sending anything twice.
 */
export class Notifier {
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private sweeping: Promise<void> | null = null;
  private sweepAgain = false;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly links: ApprovalLinks,
    private readonly bus: JournalBus,
    private readonly logger: Logger,
    private readonly options: NotifierOptions = defaultNotifierOptions,
  ) {}

  async start(): Promise<void> {
    await ensureCursor(this.db);
    await this.links.ready();
    this.unsubscribe = this.bus.subscribe((events) => this.onEvents(events));
    this.timer = setInterval(() => void this.sweep(), this.options.pollMs);
    this.timer.unref();
    void this.sweep();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
    await this.sweeping;
  }

  private onEvents(events: JournalEvent[]): void {
    if (events.some((event) => kindOf(event) !== null)) void this.sweep();
  }

  /**
   * Enqueues from the journal, then sends what is due. A call while a sweep runs makes one more
   * run after it, so a caller that awaits a sweep knows it started after its own commit.
   */
  sweep(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.sweeping) {
      this.sweepAgain = true;
      return this.sweeping;
    }
    this.sweeping = (async () => {
      try {
        do {
          this.sweepAgain = false;
          while (await enqueueFromJournal(this.db, this.links, this.options.now()));
          await this.deliverDue();
        } while (this.sweepAgain && !this.stopped);
      } catch (error) {
        this.logger.error({ err: error }, 'notification sweep failed; the next sweep retries');
      } finally {
        this.sweeping = null;
      }
    })();
    return this.sweeping;
  }

  private async deliverDue(): Promise<void> {
    for (;;) {
      const now = this.options.now();
      const claimed = await claimDue(this.db, now, this.options);
      if (claimed.length === 0) return;
      await Promise.all(
        claimed.map(async ({ delivery, target }) => {
          const attempt = await send(delivery, target, now, this.options.timeoutMs);
          await recordAttempt(
            this.db,
            delivery,
            target,
            attempt,
            this.options.now(),
            this.options,
            this.logger,
          );
        }),
      );
    }
  }
}
