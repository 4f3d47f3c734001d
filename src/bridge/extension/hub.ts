import { randomUUID } from 'node:crypto';
import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import { Repeater } from 'graphql-yoga';
import type { Principal } from '../../core/auth.js';
import type { Logger } from '../../core/logger.js';
import type { Database } from '../../db/client.js';
import type { InvocationRow, InvocationStore } from './invocations.js';
import { BRIDGE_CHANNEL, type BridgeSignal, parseSignal, signal } from './signals.js';
import { extensionConnections } from './tables.js';
import { extensionOf } from './tools.js';

export interface BridgeOptions {
  /** How often the hub re-reads what notifications may have missed, and re-checks waiting calls. */
  pollMs: number;
  /** How long a connection counts as live without a renewal (covers a killed process). */
  connectionLeaseMs: number;
}

const STALE_CLEANUP_MS = 60_000;

export const defaultBridgeOptions: BridgeOptions = { pollMs: 500, connectionLeaseMs: 15_000 };

interface Connection {
  id: string;
  extensionId: string;
  /** Calls already sent on this connection; kept only while they are pending. */
  delivered: Set<string>;
  push(row: InvocationRow): void;
}

interface Waiter {
  extensionId: string;
  wake(): void;
}

/** A wait that ends at the next wake-up of a call: a signal about it, a poll tick, or its own timer. */
export interface Wake {
  next(ms: number): Promise<void>;
  /** Ends the current wait now (an abort, say). */
  poke(): void;
  dispose(): void;
}

/**
 * One per process. Holds this process's extension subscriptions (their presence rows and what was
 * delivered on each) and the calls this process is waiting on, and turns bridge notifications from
 * any process into deliveries and wake-ups.
 */
export class BridgeHub {
  readonly hubId = `hub-${randomUUID()}`;
  private readonly connections = new Map<string, Connection>();
  private readonly waiters = new Map<string, Set<Waiter>>();
  private unlisten: (() => Promise<void>) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private polling = false;
  private cleanedAt = 0;

  constructor(
    private readonly database: Database,
    private readonly store: InvocationStore,
    private readonly logger: Logger,
    private readonly options: BridgeOptions = defaultBridgeOptions,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.database.listen(BRIDGE_CHANNEL, {
      onNotify: (payload) => {
        const message = parseSignal(payload);
        if (message) void this.onSignal(message);
      },
      onListen: () => void this.poll(),
    });
    this.timer = setInterval(() => void this.poll(), this.options.pollMs);
    this.timer.unref();
    this.heartbeat = setInterval(() => void this.renew(), Math.max(50, this.options.connectionLeaseMs / 3));
    this.heartbeat.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.unlisten?.();
    const ids = [...this.connections.keys()];
    this.connections.clear();
    if (ids.length > 0) await this.disconnect(ids).catch(() => {});
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /**
   * The stream behind the `extensionInvocations` subscription. While it is open the extension
   * counts as connected in every process; it first sends what is already pending, then each new
   * invocation. Every connection of an extension receives its invocations; the first answer wins.
   */
  invocations(principal: Principal): Repeater<InvocationRow> {
    const extensionId = extensionOf(principal);
    return new Repeater<InvocationRow>(async (push, stop) => {
      const connection: Connection = {
        id: randomUUID(),
        extensionId,
        delivered: new Set(),
        push: (row) => {
          if (connection.delivered.has(row.callId)) return;
          connection.delivered.add(row.callId);
          push(row).catch(() => {});
        },
      };
      let present = false;
      try {
        await this.database.db.insert(extensionConnections).values({
          id: connection.id,
          extensionId,
          tokenId: principal.tokenId,
          hubId: this.hubId,
          expiresAt: sql`now() + ${this.options.connectionLeaseMs} * interval '1 millisecond'`,
        });
        present = true;
        this.connections.set(connection.id, connection);
        for (const row of await this.store.pending([extensionId])) connection.push(row);
      } catch (error) {
        this.connections.delete(connection.id);
        // Its presence row would otherwise count it as connected until the lease ran out.
        if (present) await this.disconnect([connection.id]);
        stop(error);
        return;
      }
      await stop;
      if (this.connections.delete(connection.id)) await this.disconnect([connection.id]);
    });
  }

  /** Subscribes a waiting call to its wake-ups. */
  wake(callId: string, extensionId: string): Wake {
    let resolve: (() => void) | null = null;
    // A wake-up that comes while the call is busy re-reading its row is kept for the next wait.
    let woken = false;
    const waiter: Waiter = {
      extensionId,
      wake: () => {
        if (resolve) resolve();
        else woken = true;
      },
    };
    const set = this.waiters.get(callId) ?? new Set<Waiter>();
    this.waiters.set(callId, set);
    set.add(waiter);
    return {
      next: (ms) =>
        new Promise<void>((done) => {
          if (woken || ms <= 0) {
            woken = false;
            done();
            return;
          }
          const timer = setTimeout(() => waiter.wake(), ms);
          resolve = () => {
            resolve = null;
            clearTimeout(timer);
            done();
          };
        }),
      poke: () => waiter.wake(),
      dispose: () => {
        waiter.wake();
        set.delete(waiter);
        if (set.size === 0) this.waiters.delete(callId);
      },
    };
  }

  private async onSignal(message: BridgeSignal): Promise<void> {
    try {
      if (message.kind === 'settled') {
        for (const waiter of this.waiters.get(message.callId) ?? []) waiter.wake();
      } else if (message.kind === 'disconnected') {
        for (const set of this.waiters.values())
          for (const waiter of set) if (waiter.extensionId === message.extensionId) waiter.wake();
      } else {
        const listening = [...this.connections.values()].filter((c) => c.extensionId === message.extensionId);
        if (listening.length === 0) return;
        const row = await this.store.get(message.callId);
        if (row?.status === 'PENDING') for (const connection of listening) connection.push(row);
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'bridge signal handling failed; the next poll retries');
    }
  }

  /** What notifications may have missed: pending invocations for local connections, and every waiter's state. */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      await this.wakeStaleWaiters();
      const connections = [...this.connections.values()];
      if (connections.length === 0) return;
      const pending = await this.store.pending([...new Set(connections.map((c) => c.extensionId))]);
      for (const connection of connections) {
        const mine = pending.filter((row) => row.extensionId === connection.extensionId);
        const still = new Set(mine.map((row) => row.callId));
        for (const callId of connection.delivered)
          if (!still.has(callId)) connection.delivered.delete(callId);
        for (const row of mine) connection.push(row);
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'bridge poll failed');
    } finally {
      this.polling = false;
    }
  }

  /**
   * Two queries however many calls wait here: wake only the calls whose invocation was settled or
   * whose extension is gone, as a missed notification would have.
   */
  private async wakeStaleWaiters(): Promise<void> {
    const callIds = [...this.waiters.keys()];
    if (callIds.length === 0) return;
    const states = await this.store.states(callIds);
    const live = await this.store.connectedAmong([...new Set(states.map((s) => s.extensionId))]);
    const pending = new Set(
      states.filter((s) => s.status === 'PENDING' && live.has(s.extensionId)).map((s) => s.callId),
    );
    for (const [callId, set] of this.waiters) {
      if (!pending.has(callId)) for (const waiter of set) waiter.wake();
    }
  }

  private async renew(): Promise<void> {
    const ids = [...this.connections.keys()];
    try {
      // A subscription whose token is revoked or expires is ended by the process's TokenWatch, like
      // every other; ending it removes its presence row, so its calls fail over at once.
      if (ids.length > 0) {
        await this.database.db
          .update(extensionConnections)
          .set({ expiresAt: sql`now() + ${this.options.connectionLeaseMs} * interval '1 millisecond'` })
          .where(inArray(extensionConnections.id, ids));
      }
      // Rows of killed processes: long expired, they only take space. Once a minute is plenty, and
      // keeps an idle server from writing at every heartbeat.
      if (Date.now() - this.cleanedAt >= STALE_CLEANUP_MS) {
        this.cleanedAt = Date.now();
        await this.database.db
          .delete(extensionConnections)
          .where(lt(extensionConnections.expiresAt, sql`now() - interval '1 hour'`));
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'extension connection renewal failed');
    }
  }

  /** Removes presence rows and tells every process, so calls waiting on a now-absent extension end at once. */
  private async disconnect(ids: string[]): Promise<void> {
    try {
      await this.database.db.transaction(async (tx) => {
        const gone = await tx
          .delete(extensionConnections)
          .where(and(inArray(extensionConnections.id, ids), eq(extensionConnections.hubId, this.hubId)))
          .returning({ extensionId: extensionConnections.extensionId });
        for (const extensionId of new Set(gone.map((g) => g.extensionId)))
          await signal(tx, { kind: 'disconnected', extensionId });
      });
    } catch (error) {
      this.logger.warn({ err: error }, 'removing extension connections failed; they expire on their own');
    }
  }
}
