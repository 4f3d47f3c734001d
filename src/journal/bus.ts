import { setImmediate as turn } from 'node:timers/promises';
import { DomainError } from '../core/errors.js';
import type { JournalEvent } from '../core/journal-event.js';
import type { Logger } from '../core/logger.js';
import type { Database } from '../db/client.js';
import { JOURNAL_CHANNEL } from './announce.js';
import { Feed } from './feed.js';
import {
  type JournalCursor,
  type JournalFilter,
  type JournalPage,
  journalHorizon,
  journalNow,
  matchesFilter,
  readEvents,
} from './read.js';

type Listener = (events: JournalEvent[]) => void;

const PAGE = 500;
/** A replay's page: its reads overlap the delivery of the page before, so fewer and larger is faster. */
const REPLAY_PAGE = 1000;
/** Unread events a subscriber may fall behind by before its subscription ends (see SUBSCRIBER_TOO_SLOW). */
export const MAX_BACKLOG = 10_000;
/**
 * Subscribers handed a batch before the fan-out lets the event loop run (a millisecond or so): delivering one event to a
 * thousand subscribers is tens of milliseconds of work, and in one go it held back every database
 * reply of the process (its writers' too) until it was done.
 */
const FAN_OUT_CHUNK = 25;
/** How soon to read again while committed events wait above the horizon, doubling up to the last. */
const FIRST_SETTLE_MS = 2;
const LAST_SETTLE_MS = 100;
/**
 * The safety read: what no wake-up announced (a writer killed between its commit and its NOTIFY).
 * Every other read is woken: by this process's own commits, by other processes' NOTIFY, by a
 * LISTEN (re-)established, and by the settle reads above.
 */
export const DEFAULT_BUS_POLL_MS = 5_000;

export interface JournalBusOptions {
  pollMs?: number;
  /** This process's JournalAnnouncer: its NOTIFYs come back here and are skipped (the commit woke the bus). */
  origin?: string;
}

/**
 * One per process. It reads each new batch of rows once and fans it out in memory to every
 * subscriber, so 1,000 dashboards cost one query per batch, not 1,000. It reads when this
 * process commits events (at once, without a round trip) and when another process's
 * JournalAnnouncer says it did (a NOTIFY naming only the process). It reads below the horizon only
 * (see `read.ts`), and again shortly while committed events wait above it, since the transaction
 * holding them back may end without a wake-up. A slow periodic read covers wake-ups lost while a
 * connection was down or with a process that died before sending one.
 */
export class JournalBus {
  private highWater: bigint | null = null;
  private settleTimer: NodeJS.Timeout | null = null;
  private settleMs = FIRST_SETTLE_MS;
  private stopped = false;
  private readonly listeners = new Set<Listener>();
  private reading: Promise<void> | null = null;
  private readAgain = false;
  private unlisten: (() => Promise<void>) | null = null;
  private offCommit: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly pollMs: number;
  private readonly origin: string | undefined;

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
    options: JournalBusOptions = {},
  ) {
    this.pollMs = options.pollMs ?? DEFAULT_BUS_POLL_MS;
    this.origin = options.origin;
  }

  async start(): Promise<void> {
    // Events that committed above the horizon before the start are delivered too, rather than
    // remembered as seen: a subscriber replaying from before them may stop short of them.
    this.highWater = (await journalHorizon(this.database.db)) - 1n;
    this.offCommit = this.database.onCommit('journal', () => {
      void this.pull();
    });
    this.unlisten = await this.database.listen(JOURNAL_CHANNEL, {
      onNotify: (from) => {
        if (from !== this.origin) void this.pull();
      },
      onListen: () => void this.pull(),
    });
    this.timer = setInterval(() => this.pull(), this.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.offCommit?.();
    await this.unlisten?.();
    await this.reading;
  }

  /** Where a reader starting now stands: it gets exactly the events committed from now on. */
  now(): Promise<JournalCursor> {
    return journalNow(this.database.db);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  /** Reads everything past the high-water mark; triggers during a read coalesce into one more read after it. */
  pull(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      try {
        do {
          this.readAgain = false;
          for (;;) {
            const page = await readEvents(this.database.db, { afterSeq: this.highWater, limit: PAGE });
            const batch = page.events;
            if (batch.length > 0) {
              this.highWater = batch[batch.length - 1]!.seq;
              await this.fanOut(batch);
            }
            if (page.unsettled) {
              this.settleLater();
              break;
            }
            this.settleMs = FIRST_SETTLE_MS;
            if (batch.length < PAGE) break;
          }
        } while (this.readAgain);
      } catch (error) {
        this.logger.warn({ err: error }, 'journal bus read failed; the next notification or poll retries');
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }

  /**
   * To the listeners there are as the batch is read (one joining later replays it from the table),
   * in chunks with a turn of the event loop between them.
   */
  private async fanOut(batch: JournalEvent[]): Promise<void> {
    const listeners = [...this.listeners];
    for (let i = 0; i < listeners.length; i += FAN_OUT_CHUNK) {
      if (i > 0) await turn();
      for (const listener of listeners.slice(i, i + FAN_OUT_CHUNK))
        if (this.listeners.has(listener)) listener(batch);
    }
  }

  private settleLater(): void {
    if (this.settleTimer || this.stopped) return;
    this.settleTimer = setTimeout(() => {
      this.settleTimer = null;
      void this.pull();
    }, this.settleMs);
    this.settleTimer.unref();
    this.settleMs = Math.min(this.settleMs * 2, LAST_SETTLE_MS);
  }

  /**
   * Replays the events after `from`, then streams live ones. It joins the live stream before the
   * replay starts and drops what the replay already gave, so there is no gap and no duplicate at
   * the seam. Without `from` it starts now (`now()`); a cursor's `seen` events are never given.
   */
  stream(
    filter: JournalFilter,
    from: bigint | JournalCursor | null,
    accept: (e: JournalEvent) => boolean = () => true,
  ): Feed<JournalEvent> {
    const feed = new Feed<JournalEvent>(
      MAX_BACKLOG,
      () =>
        new DomainError(
          'SUBSCRIBER_TOO_SLOW',
          `this subscription fell ${MAX_BACKLOG} events behind; subscribe again after the last position received`,
          { maxBacklog: MAX_BACKLOG },
        ),
    );
    let last = 0n;
    let seen: ReadonlySet<bigint> = new Set();
    let live = false;
    const held: JournalEvent[] = [];
    const forward = (event: JournalEvent) => {
      if (event.seq <= last || seen.has(event.seq) || !matchesFilter(event, filter) || !accept(event)) return;
      last = event.seq;
      feed.push(event);
    };
    const unsubscribe = this.subscribe((events) => {
      if (live) events.forEach(forward);
      else held.push(...events);
    });
    feed.onClose(unsubscribe);
    // Everything up to here the bus gave out before this subscriber joined, below a horizon it
    // read: final, so the replay takes it even if its own horizon has dipped below (see read.ts).
    const delivered = this.highWater ?? -1n;
    const page = (afterSeq: bigint) =>
      readEvents(this.database.db, { ...filter, afterSeq, limit: REPLAY_PAGE, settledThrough: delivered });
    void (async () => {
      const start = from ?? (await this.now());
      if (typeof start === 'bigint') last = start;
      else ({ afterSeq: last, seen } = start);
      // The next page is read while the reader takes this one: the database and the delivery overlap.
      let reading: Promise<JournalPage> | null = page(last);
      while (reading && !feed.closed) {
        const { events }: JournalPage = await reading;
        reading = events.length < REPLAY_PAGE ? null : page(events[events.length - 1]!.seq);
        for (const event of events) {
          last = event.seq;
          if (!seen.has(event.seq) && accept(event)) feed.push(event);
        }
        await feed.drained();
      }
      // What is still above the horizon when the replay ends comes from the bus, in order.
      live = true;
      held.splice(0).forEach(forward);
    })().catch((error: unknown) => feed.fail(error));
    return feed;
  }
}
