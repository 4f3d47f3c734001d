import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { Executor } from '../../db/tx.js';
import type { BridgeInvocationStatus } from './rules/extension-tool.js';
import { signal } from './signals.js';
import { bridgeInvocations, extensionConnections } from './tables.js';

export type ExtensionConnectionRow = typeof extensionConnections.$inferSelect;

export type InvocationRow = typeof bridgeInvocations.$inferSelect;
export type NewInvocation = Pick<
  InvocationRow,
  'callId' | 'runId' | 'extensionId' | 'toolName' | 'localName' | 'arguments' | 'deadline'
>;

/** The rows of the bridge and the conditional updates that keep each outcome exactly-once. */
export class InvocationStore {
  constructor(private readonly db: Db) {}

  async get(callId: string, executor: Executor = this.db): Promise<InvocationRow | null> {
    const [row] = await executor.select().from(bridgeInvocations).where(eq(bridgeInvocations.callId, callId));
    return row ?? null;
  }

  /** Whether any process holds a live subscription of this extension (by the database's clock). */
  async connected(extensionId: string, executor: Executor = this.db): Promise<boolean> {
    const [row] = await executor
      .select({ id: extensionConnections.id })
      .from(extensionConnections)
      .where(
        and(
          eq(extensionConnections.extensionId, extensionId),
          gt(extensionConnections.expiresAt, sql`now()`),
        ),
      )
      .limit(1);
    return row !== undefined;
  }

  /** Every live subscription in any process, for people watching the bridge. */
  async liveConnections(): Promise<ExtensionConnectionRow[]> {
    return this.db
      .select()
      .from(extensionConnections)
      .where(gt(extensionConnections.expiresAt, sql`now()`))
      .orderBy(asc(extensionConnections.extensionId), asc(extensionConnections.connectedAt));
  }

  /** Which of these extensions have a live connection anywhere. */
  async connectedAmong(extensionIds: string[]): Promise<Set<string>> {
    if (extensionIds.length === 0) return new Set();
    const rows = await this.db
      .selectDistinct({ extensionId: extensionConnections.extensionId })
      .from(extensionConnections)
      .where(
        and(
          inArray(extensionConnections.extensionId, extensionIds),
          gt(extensionConnections.expiresAt, sql`now()`),
        ),
      );
    return new Set(rows.map((r) => r.extensionId));
  }

  states(callIds: string[]) {
    return this.db
      .select({
        callId: bridgeInvocations.callId,
        extensionId: bridgeInvocations.extensionId,
        status: bridgeInvocations.status,
      })
      .from(bridgeInvocations)
      .where(inArray(bridgeInvocations.callId, callIds));
  }

  /**
   * Hands a call to its extension: null when no client of it is connected. A call recovered after
   * its process died runs again under the same id, so the row is reset rather than duplicated.
   */
  create(invocation: NewInvocation): Promise<InvocationRow | null> {
    return this.db.transaction(async (tx) => {
      if (!(await this.connected(invocation.extensionId, tx))) return null;
      const values = {
        ...invocation,
        status: 'PENDING' as const,
        answer: null,
        answeredBy: null,
        finishedAt: null,
      };
      const [row] = await tx
        .insert(bridgeInvocations)
        .values(values)
        .onConflictDoUpdate({ target: bridgeInvocations.callId, set: { ...values, createdAt: new Date() } })
        .returning();
      await signal(tx, {
        kind: 'invocation',
        extensionId: invocation.extensionId,
        callId: invocation.callId,
      });
      return row!;
    });
  }

  /** Moves a pending invocation to a final status; false when another outcome got there first. */
  async settle(
    callId: string,
    status: Exclude<BridgeInvocationStatus, 'PENDING' | 'ANSWERED'>,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .update(bridgeInvocations)
        .set({ status, finishedAt: new Date() })
        .where(and(eq(bridgeInvocations.callId, callId), eq(bridgeInvocations.status, 'PENDING')))
        .returning({ callId: bridgeInvocations.callId });
      if (row) await signal(tx, { kind: 'settled', callId });
      return row !== undefined;
    });
  }

  /** Invocations still waiting for these extensions, oldest first. */
  pending(extensionIds: string[]): Promise<InvocationRow[]> {
    if (extensionIds.length === 0) return Promise.resolve([]);
    return this.db
      .select()
      .from(bridgeInvocations)
      .where(
        and(
          inArray(bridgeInvocations.extensionId, extensionIds),
          eq(bridgeInvocations.status, 'PENDING'),
          gt(bridgeInvocations.deadline, sql`now()`),
        ),
      )
      .orderBy(bridgeInvocations.createdAt);
  }
}
