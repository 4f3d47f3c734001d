import { asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { conflict, notFound } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import type { Db } from '../../db/client.js';
import type { Tx } from '../../db/tx.js';
import { appendEvents } from '../../journal/append.js';
import type { Invalidations } from '../../journal/invalidations.js';
import { startAtJournalEnd } from './enqueue.js';
import {
  type CreateTargetInput,
  createTargetInputSchema,
  type UpdateTargetInput,
  updateTargetInputSchema,
} from './shapes.js';
import { notificationTargets } from './tables.js';

export type NotificationTarget = typeof notificationTargets.$inferSelect;

/** What may be shown of a target: everything but the secret's value. */
export function publicTarget(target: NotificationTarget) {
  const { secret, ...rest } = target;
  return { ...rest, hasSecret: secret !== null };
}

function isUniqueViolation(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } }).cause;
  return (error as { code?: string }).code === '23505' || cause?.code === '23505';
}

/**
 * Admin configuration of notification targets. Each change commits with a
 * `notification_target_changed` event that says whether a secret is set, never what it is, and
 * notifies 'notification-targets' so every notifier learns whether any target is enabled.
 */
export class NotificationTargets {
  constructor(
    private readonly db: Db,
    private readonly changes: Invalidations,
  ) {}

  list(): Promise<NotificationTarget[]> {
    return this.db.select().from(notificationTargets).orderBy(asc(notificationTargets.name));
  }

  async get(id: string): Promise<NotificationTarget | null> {
    if (!z.uuid().safeParse(id).success) return null;
    const [row] = await this.db.select().from(notificationTargets).where(eq(notificationTargets.id, id));
    return row ?? null;
  }

  async byName(name: string): Promise<NotificationTarget | null> {
    const [row] = await this.db.select().from(notificationTargets).where(eq(notificationTargets.name, name));
    return row ?? null;
  }

  async create(raw: CreateTargetInput | unknown, actor: string): Promise<NotificationTarget> {
    const input = parseInput(createTargetInputSchema, raw);
    return this.unique(input.name, () =>
      this.changes.transaction(async (tx) => {
        const [row] = await tx
          .insert(notificationTargets)
          .values({
            name: input.name,
            kind: input.kind,
            url: input.url,
            events: input.events,
            consoleUrl: input.consoleUrl ?? null,
            secret: input.secret ?? null,
            enabled: input.enabled ?? true,
          })
          .returning();
        await this.recordChange(tx, 'added', row!, actor, false);
        return row!;
      }),
    );
  }

  async update(id: string, raw: UpdateTargetInput | unknown, actor: string): Promise<NotificationTarget> {
    const input = parseInput(updateTargetInputSchema, raw);
    if (!z.uuid().safeParse(id).success) throw notFound(`no notification target ${id}`);
    return this.unique(input.name ?? '', () =>
      this.changes.transaction(async (tx) => {
        // Locked, so two writers enabling it at once agree which of them turned it on.
        const [before] = await tx
          .select({ enabled: notificationTargets.enabled })
          .from(notificationTargets)
          .where(eq(notificationTargets.id, id))
          .for('no key update');
        if (!before) throw notFound(`no notification target ${id}`);
        const [row] = await tx
          .update(notificationTargets)
          .set({
            ...(input.name === undefined ? {} : { name: input.name }),
            ...(input.url === undefined ? {} : { url: input.url }),
            ...(input.events === undefined ? {} : { events: input.events }),
            ...(input.consoleUrl === undefined ? {} : { consoleUrl: input.consoleUrl }),
            ...(input.secret === undefined ? {} : { secret: input.secret }),
            ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
            updatedAt: new Date(),
          })
          .where(eq(notificationTargets.id, id))
          .returning();
        await this.recordChange(tx, 'updated', row!, actor, before.enabled);
        return row!;
      }),
    );
  }

  /** Its pending deliveries go with it: nothing is sent to a target that no longer exists. */
  async remove(id: string, actor: string): Promise<NotificationTarget> {
    if (!z.uuid().safeParse(id).success) throw notFound(`no notification target ${id}`);
    return this.changes.transaction(async (tx) => {
      const [row] = await tx.delete(notificationTargets).where(eq(notificationTargets.id, id)).returning();
      if (!row) throw notFound(`no notification target ${id}`);
      await this.recordChange(tx, 'removed', row, actor, row.enabled);
      return row;
    });
  }

  private async unique<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`a notification target named ${name} exists`);
      throw error;
    }
  }

  /**
   * The change's event and notification. A target turned on starts at the journal's end when it
   * is the only one enabled (see startAtJournalEnd).
   */
  private async recordChange(
    tx: Tx,
    action: 'added' | 'updated' | 'removed',
    row: NotificationTarget,
    actor: string,
    wasEnabled: boolean,
  ): Promise<void> {
    const { id, name, kind, events, enabled, hasSecret } = publicTarget(row);
    await appendEvents(tx, [
      {
        type: 'notification_target_changed',
        actor,
        payload: { action, targetId: id, name, kind, events, enabled, hasSecret },
      },
    ]);
    if (action !== 'removed' && enabled && !wasEnabled) await startAtJournalEnd(tx, id);
    await this.changes.notify(tx, 'notification-targets');
  }
}
