import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { mcpPendingCalls } from './tables.js';

/** What identifies identical calls: same user, same tool, same canonical arguments. */
export interface IdenticalKey {
  userId: string;
  toolName: string;
  argumentsHash: string;
}

/** The open slot of a key: taken by this request (`callId` null: it requests the call), or another's call. */
export type Slot = { id: string; callId: null } | { id: string; callId: string };

export interface PendingSlotOptions {
  /** A slot whose call is still being requested after this long was taken by a process that died. */
  staleMs: number;
  /** How often a request waits on another's slot while that one requests its call. */
  pollMs: number;
}

const OPEN = isNull(mcpPendingCalls.deliveredAt);

/**
 * The one open call of identical calls, kept in `mcp_pending_calls`. A first call takes the slot
 * (an insert the unique index over open rows lets one request win) before it asks for the call,
 * so two identical first calls at once make one call and one approval: the loser waits the few
 * milliseconds the winner takes to request it, then attaches to it.
 */
export class PendingSlots {
  constructor(
    private readonly db: Db,
    private readonly options: PendingSlotOptions,
  ) {}

  async take(key: IdenticalKey, signal: AbortSignal): Promise<Slot> {
    for (;;) {
      const [mine] = await this.db
        .insert(mcpPendingCalls)
        .values(key)
        .onConflictDoNothing({
          target: [mcpPendingCalls.userId, mcpPendingCalls.toolName, mcpPendingCalls.argumentsHash],
          where: OPEN,
        })
        .returning({ id: mcpPendingCalls.id });
      if (mine) return { id: mine.id, callId: null };
      const [open] = await this.db
        .select({ id: mcpPendingCalls.id, callId: mcpPendingCalls.callId })
        .from(mcpPendingCalls)
        .where(and(this.of(key), OPEN))
        .limit(1);
      if (open?.callId) return { id: open.id, callId: open.callId };
      if (open) {
        // Its taker died between taking it and recording its call: the slot is freed for the next.
        await this.db
          .delete(mcpPendingCalls)
          .where(
            and(
              eq(mcpPendingCalls.id, open.id),
              isNull(mcpPendingCalls.callId),
              lt(
                mcpPendingCalls.createdAt,
                sql`now() - make_interval(secs => ${this.options.staleMs / 1000})`,
              ),
            ),
          );
        signal.throwIfAborted();
        await sleep(this.options.pollMs);
      }
    }
  }

  /** The call this request made for its slot; a slot lost meanwhile (stale) is taken again if free. */
  async fill(slotId: string, key: IdenticalKey, callId: string): Promise<void> {
    const filled = await this.db
      .update(mcpPendingCalls)
      .set({ callId })
      .where(and(eq(mcpPendingCalls.id, slotId), isNull(mcpPendingCalls.callId)))
      .returning({ id: mcpPendingCalls.id });
    if (filled.length === 0) await this.record(key, callId);
  }

  /**
   * A call that waits for a person though no slot was taken for it (the policy asked for none when
   * the host called): later identical calls attach to it, unless one is already open.
   */
  async record(key: IdenticalKey, callId: string): Promise<void> {
    await this.db
      .insert(mcpPendingCalls)
      .values({ ...key, callId })
      .onConflictDoNothing({
        target: [mcpPendingCalls.userId, mcpPendingCalls.toolName, mcpPendingCalls.argumentsHash],
        where: OPEN,
      });
  }

  /** A slot whose call ended at once (or was never made): nothing waits on it. */
  async release(slotId: string): Promise<void> {
    await this.db
      .delete(mcpPendingCalls)
      .where(and(eq(mcpPendingCalls.id, slotId), isNull(mcpPendingCalls.callId)));
  }

  /** Marks the call's outcome delivered; true for the one request that does so (exactly once). */
  async deliver(callId: string): Promise<boolean> {
    const won = await this.db
      .update(mcpPendingCalls)
      .set({ deliveredAt: new Date() })
      .where(and(eq(mcpPendingCalls.callId, callId), OPEN))
      .returning({ id: mcpPendingCalls.id });
    return won.length > 0;
  }

  /** The call `callId` if it is one of this user's the gateway holds or answered pending. */
  async isUsers(callId: string, userId: string): Promise<boolean> {
    const [row] = await this.db
      .select({ id: mcpPendingCalls.id })
      .from(mcpPendingCalls)
      .where(and(eq(mcpPendingCalls.callId, callId), eq(mcpPendingCalls.userId, userId)))
      .limit(1)
      .catch(() => []);
    return row !== undefined;
  }

  private of(key: IdenticalKey) {
    return and(
      eq(mcpPendingCalls.userId, key.userId),
      eq(mcpPendingCalls.toolName, key.toolName),
      eq(mcpPendingCalls.argumentsHash, key.argumentsHash),
    );
  }
}
