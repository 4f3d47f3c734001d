import { asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { conflict, notFound } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import type { Db } from '../../db/client.js';
import type { Tx } from '../../db/tx.js';
import { appendEvents } from '../../journal/append.js';
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
 * `notification_target_changed` event that says whether a secret is set, never what it is.
 */
export class NotificationTargets {
  constructor(private readonly db: Db) {}

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
      this.db.transaction(async (tx) => {
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
        await this.journal(tx, 'added', row!, actor);
        return row!;
      }),
    );
  }

  async update(id: string, raw: UpdateTargetInput | unknown, actor: string): Promise<NotificationTarget> {
    const input = parseInput(updateTargetInputSchema, raw);
    if (!(await this.get(id))) throw notFound(`no notification target ${id}`);
    return this.unique(input.name ?? '', () =>
      this.db.transaction(async (tx) => {
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
        if (!row) throw notFound(`no notification target ${id}`);
        await this.journal(tx, 'updated', row, actor);
        return row;
      }),
    );
  }

  /** Its pending deliveries go with it: nothing is sent to a target that no longer exists. */
  async remove(id: string, actor: string): Promise<NotificationTarget> {
    if (!z.uuid().safeParse(id).success) throw notFound(`no notification target ${id}`);
    return this.db.transaction(async (tx) => {
      const [row] = await tx.delete(notificationTargets).where(eq(notificationTargets.id, id)).returning();
      if (!row) throw notFound(`no notification target ${id}`);
      await this.journal(tx, 'removed', row, actor);
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

  private async journal(tx: Tx, action: string, row: NotificationTarget, actor: string): Promise<void> {
    const { id, name, kind, events, enabled, hasSecret } = publicTarget(row);
    await appendEvents(tx, [
      {
        type: 'notification_target_changed',
        actor,
        payload: { action, targetId: id, name, kind, events, enabled, hasSecret },
      },
    ]);
  }
}
