import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Logger } from '../core/logger.js';
import type { Database } from '../db/client.js';
import type { Executor, Tx } from '../db/tx.js';

export const INVALIDATION_CHANNEL = 'ats_invalidate';

/** What a process may keep in memory and must drop when another process (or this one) changes it. */
export const changeTopics = ['policy', 'registry', 'tokens', 'notification-targets', 'mcp-sessions'] as const;
export type ChangeTopic = (typeof changeTopics)[number];

/** How long a writer waits for its own notification to come back before it answers anyway. */
export const DEFAULT_ECHO_WAIT_MS = 1_000;

interface Notice {
  topic: ChangeTopic;
  id: string;
}

interface Sent extends Notice {
  /** True once this process's LISTEN has received it, false when the wait ran out. */
  back: Promise<boolean>;
}

/**
 * One per process. A writer calls `notify` inside its transaction: the NOTIFY is delivered to
 * every listening process at commit, and each runs the handlers of the topic, so a cache anywhere
 * drops what changed. Notifications sent while a LISTEN was down are lost, so when it is
 * (re-)established every handler runs as if everything changed.
 *
 * A writer that owns its transaction runs it through `transaction`, which returns only once this
 * process's own LISTEN has received the notification: Postgres signals every listener at the same
 * commit, so by then the other processes have it too, and the client that gets the answer finds
 * the change obeyed wherever it calls next. Until then (and for a transaction someone else
 * commits), `unsettled` tells this process's caches to read the table instead of themselves.
 */
export class Invalidations {
  private readonly handlers = new Map<ChangeTopic, Set<() => void>>();
  private readonly origin = randomUUID();
  private sequence = 0;
  /** This process's notifications not yet back, by id. */
  private readonly waiting = new Map<string, { topic: ChangeTopic; done: (back: boolean) => void }>();
  private readonly sentIn = new WeakMap<object, Sent[]>();
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
    private readonly echoWaitMs = DEFAULT_ECHO_WAIT_MS,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.database.listen(INVALIDATION_CHANNEL, {
      onNotify: (payload) => this.receive(payload),
      onListen: () => {
        for (const topic of changeTopics) this.run(topic);
      },
    });
  }

  async stop(): Promise<void> {
    const unlisten = this.unlisten;
    this.unlisten = null;
    await unlisten?.();
    for (const { done } of [...this.waiting.values()]) done(false);
  }

  /** Runs `handler` whenever `topic` may have changed, in any process. */
  on(topic: ChangeTopic, handler: () => void): () => void {
    const set = this.handlers.get(topic) ?? new Set();
    this.handlers.set(topic, set);
    set.add(handler);
    return () => set.delete(handler);
  }

  /**
   * Says, inside the writer's transaction, that `topic` changed: every process hears it at commit,
   * none if the transaction rolls back. This process's handlers run at once as well, so that a
   * read already under way does not store what it read.
   */
  async notify(tx: Executor, topic: ChangeTopic): Promise<void> {
    this.sequence += 1;
    const notice: Notice = { topic, id: `${this.origin}:${this.sequence}` };
    await tx.execute(sql`select pg_notify(${INVALIDATION_CHANNEL}, ${JSON.stringify(notice)})`);
    const sent = [...(this.sentIn.get(tx) ?? []), { ...notice, back: this.awaitBack(notice) }];
    this.sentIn.set(tx, sent);
    this.run(topic);
  }

  /** Whether this transaction has itself changed `topic`: what it reads of it must come from the table. */
  changedIn(tx: Executor, topic: ChangeTopic): boolean {
    return (this.sentIn.get(tx) ?? []).some((notice) => notice.topic === topic);
  }

  /** Whether a change of `topic` this process sent may have committed without its notification being back yet. */
  unsettled(topic: ChangeTopic): boolean {
    for (const waiting of this.waiting.values()) if (waiting.topic === topic) return true;
    return false;
  }

  /**
   * A writer's own transaction: commits, runs this process's handlers again, then waits (at most
   * the echo wait) until the notifications it sent are back.
   */
  async transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const used: Tx[] = [];
    try {
      const result = await this.database.db.transaction((tx) => {
        used.push(tx);
        return work(tx);
      });
      for (const tx of used) await this.settle(tx);
      return result;
    } catch (error) {
      // Rolled back: nothing was delivered, so nothing is waited for.
      for (const tx of used)
        for (const notice of this.sentIn.get(tx) ?? []) this.waiting.get(notice.id)?.done(true);
      throw error;
    }
  }

  /**
   * After the commit of a transaction that notified: this process drops what it cached, then waits
   * until its own LISTEN has heard every notification of it. Without a LISTEN (a CLI process) it
   * does not wait: the server processes still hear the notifications.
   */
  async settle(tx: Tx): Promise<void> {
    const sent = this.sentIn.get(tx) ?? [];
    for (const topic of new Set(sent.map((notice) => notice.topic))) this.run(topic);
    const back = await Promise.all(sent.map((notice) => notice.back));
    if (back.includes(false)) {
      this.logger.warn(
        { topics: sent.map((notice) => notice.topic), waitedMs: this.echoWaitMs },
        'a change notification did not come back in time: other processes may act on the old state until they hear it',
      );
    }
  }

  private awaitBack(notice: Notice): Promise<boolean> {
    if (!this.unlisten) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), this.echoWaitMs);
      timer.unref();
      const done = (back: boolean) => {
        clearTimeout(timer);
        this.waiting.delete(notice.id);
        // Whatever this process read meanwhile was read from the table, not kept; from now it may be.
        if (!back) this.run(notice.topic);
        resolve(back);
      };
      this.waiting.set(notice.id, { topic: notice.topic, done });
    });
  }

  private receive(payload: string): void {
    let notice: Notice;
    try {
      notice = JSON.parse(payload) as Notice;
    } catch (error) {
      this.logger.warn(
        { err: error },
        'an invalidation notification could not be read; dropping every cache',
      );
      for (const topic of changeTopics) this.run(topic);
      return;
    }
    this.run(notice.topic);
    this.waiting.get(notice.id)?.done(true);
  }

  private run(topic: ChangeTopic): void {
    for (const handler of this.handlers.get(topic) ?? []) {
      try {
        handler();
      } catch (error) {
        this.logger.warn({ err: error, topic }, 'an invalidation handler failed');
      }
    }
  }
}
