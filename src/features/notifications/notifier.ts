import type { JournalEvent } from '../../core/journal-event.js';
import type { Logger } from '../../core/logger.js';
import type { Db } from '../../db/client.js';
import type { JournalBus } from '../../journal/bus.js';
import { Cached } from '../../journal/cached.js';
import type { Invalidations } from '../../journal/invalidations.js';
import { anyPending, claimDue, type DeliveryOptions, recordAttempt, send } from './deliver.js';
import { anyTargetEnabled, enqueueFromJournal, ensureCursor } from './enqueue.js';
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

/** What the notifier works with: the outbox's store, approval links, the journal's bus, cache changes. */
export interface NotifierDeps {
  db: Db;
  links: ApprovalLinks;
  bus: JournalBus;
  /** Tells this process when a target changed anywhere (whether one is enabled is cached). */
  changes: Invalidations;
  logger: Logger;
}

/**
 * The background half of notifications: the journal is the queue's source (a stored cursor, so a
 * restart misses nothing), the deliveries table is the queue (durable, retried with back-off), and
 * any number of processes may sweep at once without sending anything twice.
 *
 * While no target is enabled no event can make a delivery, so the notifier reads nothing: whether
 * one is enabled is kept per process until a target changes anywhere ('notification-targets'), and
 * the cursor stays where it is until a writer enabling a target moves it (see startAtJournalEnd).
 * Deliveries left to a target since disabled are still sent, on the slow timer, until none is pending.
 */
export class Notifier {
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private sweeping: Promise<void> | null = null;
  /** What was asked for while a sweep ran: one more pass, after it. */
  private requested: 'journal' | 'full' | null = null;
  private stopped = false;
  private readonly targetsEnabled: Cached<boolean>;
  /** Whether a delivery may be pending, as far as this process knows, and how often that was last said. */
  private maybePending = true;
  private pendingNews = 0;

  private readonly db: Db;
  private readonly links: ApprovalLinks;
  private readonly bus: JournalBus;
  private readonly logger: Logger;

  constructor(
    { db, links, bus, changes, logger }: NotifierDeps,
    private readonly options: NotifierOptions = defaultNotifierOptions,
  ) {
    this.db = db;
    this.links = links;
    this.bus = bus;
    this.logger = logger;
    this.targetsEnabled = new Cached(changes, 'notification-targets');
    // A target disabled after its deliveries were enqueued (here or elsewhere) leaves them pending.
    changes.on('notification-targets', () => this.mayHavePending());
  }

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
    if (events.some((event) => kindOf(event) !== null)) void this.run('journal');
  }

  /**
   * Enqueues from the journal, then sends what is due (the timer's sweep, and what tests await). A
   * call while a sweep runs makes one more run after it, so a caller that awaits a sweep knows it
   * started after its own commit.
   */
  sweep(): Promise<void> {
    return this.run('full');
  }

  private run(kind: 'journal' | 'full'): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.requested = kind === 'full' || this.requested === 'full' ? 'full' : 'journal';
    this.sweeping ??= this.drain();
    return this.sweeping;
  }

  private async drain(): Promise<void> {
    try {
      while (this.requested && !this.stopped) {
        const kind = this.requested;
        this.requested = null;
        await this.pass(kind);
      }
    } catch (error) {
      this.logger.error({ err: error }, 'notification sweep failed; the next sweep retries');
    } finally {
      this.requested = null;
      this.sweeping = null;
    }
  }

  /** A journal batch costs no statement while no target is enabled; leftovers wait for the timer. */
  private async pass(kind: 'journal' | 'full'): Promise<void> {
    if (await this.targetsEnabled.read(() => anyTargetEnabled(this.db))) {
      this.mayHavePending();
      while (await enqueueFromJournal(this.db, this.links, this.options.now()));
      await this.deliverDue();
    } else if (kind === 'full' && this.maybePending) {
      const news = this.pendingNews;
      await this.deliverDue();
      const pending = await anyPending(this.db);
      // A change heard meanwhile may have made one after this read: it is checked next time.
      if (news === this.pendingNews) this.maybePending = pending;
    }
  }

  private mayHavePending(): void {
    this.maybePending = true;
    this.pendingNews += 1;
  }

  private async deliverDue(): Promise<void> {
    for (;;) {
      const now = this.options.now();
      const claimed = await claimDue(this.db, now, this.options);
      if (claimed.length === 0) return;
      await Promise.all(
        claimed.map(async ({ delivery, target }) => {
          const attempt = await send(delivery, target, now, this.options.timeoutMs);
          await recordAttempt(this.db, {
            delivery,
            target,
            attempt,
            now: this.options.now(),
            options: this.options,
            logger: this.logger,
          });
        }),
      );
    }
  }
}
