import { sql } from 'drizzle-orm';
import { Repeater } from 'graphql-yoga';
import type { JournalEvent } from '../core/journal-event.js';
import type { Logger } from '../core/logger.js';
import type { Database } from '../db/client.js';
import { rowsOf } from '../db/tx.js';
import { JOURNAL_CHANNEL } from './append.js';
import { type JournalFilter, matchesFilter, readEvents } from './read.js';

type Listener = (events: JournalEvent[]) => void;

const PAGE = 500;

/**
 * One per process. NOTIFY carries only a position; the bus reads each new batch of rows once and
 * fans it out in memory to every subscriber, so 1,000 dashboards cost one query per batch, not
 * 1,000. A slow periodic read covers notifications lost while a connection was down.
 */
export class JournalBus {
  private highWater: bigint | null = null;
  private readonly listeners = new Set<Listener>();
  private reading: Promise<void> | null = null;
  private readAgain = false;
  private unlisten: (() => Promise<void>) | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
    private readonly pollMs = 2000,
  ) {}

  async start(): Promise<void> {
    this.highWater = await this.currentSeq();
    this.unlisten = await this.database.listen(JOURNAL_CHANNEL, {
      onNotify: () => this.pull(),
      onListen: () => this.pull(),
    });
    this.timer = setInterval(() => this.pull(), this.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.unlisten?.();
    await this.reading;
  }

  async currentSeq(): Promise<bigint> {
    const [row] = rowsOf<{ seq: string | null }>(
      await this.database.db.execute(sql`select max(seq)::text as seq from journal_events`),
    );
    return BigInt(row?.seq ?? 0);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  /** Reads everything past the high-water mark; concurrent triggers coalesce into one more read. */
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
            const batch = await readEvents(this.database.db, { afterSeq: this.highWater, limit: PAGE });
            if (batch.length === 0) break;
            this.highWater = batch[batch.length - 1]!.seq;
            for (const listener of this.listeners) listener(batch);
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
   * Replays the events after `afterSeq` from the table, then streams live ones. It joins the live
   * stream before the replay starts and drops what the replay already gave, so there is no gap
   * and no duplicate at the seam. Without `afterSeq` it starts at the current position.
   */
  stream(filter: JournalFilter, afterSeq: bigint | null, accept: (e: JournalEvent) => boolean = () => true) {
    return new Repeater<JournalEvent>(async (push, stop) => {
      let last = 0n;
      let live = false;
      const held: JournalEvent[] = [];
      const forward = (event: JournalEvent) => {
        if (event.seq <= last || !matchesFilter(event, filter) || !accept(event)) return;
        last = event.seq;
        void push(event);
      };
      const unsubscribe = this.subscribe((events) => {
        if (live) events.forEach(forward);
        else held.push(...events);
      });
      let stopped = false;
      void stop.then(() => {
        stopped = true;
      });
      try {
        last = afterSeq ?? (await this.currentSeq());
        while (!stopped) {
          const page = await readEvents(this.database.db, { ...filter, afterSeq: last, limit: PAGE });
          for (const event of page) {
            last = event.seq;
            if (accept(event)) await push(event);
          }
          if (page.length < PAGE) break;
        }
        live = true;
        held.splice(0).forEach(forward);
      } catch (error) {
        stop(error);
      }
      await stop;
      unsubscribe();
    });
  }
}
