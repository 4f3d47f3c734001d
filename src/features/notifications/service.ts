import { and, desc, eq, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { readableCall } from '../../calls/index.js';
import type { ToolCallRow } from '../../calls/tables.js';
import type { Principal } from '../../core/auth.js';
import { badInput } from '../../core/errors.js';
import type { Db } from '../../db/client.js';
import type { Tx } from '../../db/tx.js';
import type { Invalidations } from '../../journal/invalidations.js';
import type { DeliveryRow } from './deliver.js';
import type { ApprovalLinks } from './links.js';
import { notificationDeliveries } from './tables.js';
import { NotificationTargets } from './targets.js';

export const MAX_DELIVERIES = 200;

export interface ApprovalLinkView {
  call: ToolCallRow;
  expiresAt: Date;
  usedAt: Date | null;
}

/** What the API and the CLI use: targets, the delivery log, and signed links. */
export class NotificationService {
  readonly targets: NotificationTargets;

  constructor(
    private readonly db: Db,
    readonly links: ApprovalLinks,
    changes: Invalidations,
  ) {
    this.targets = new NotificationTargets(db, changes);
  }

  /** Newest first. */
  deliveries(filter: {
    targetId?: string | null;
    callId?: string | null;
    first?: number | null;
  }): Promise<DeliveryRow[]> {
    const first = filter.first ?? 50;
    if (!Number.isInteger(first) || first < 1 || first > MAX_DELIVERIES)
      throw badInput(`first must be 1 to ${MAX_DELIVERIES}`);
    const conditions: SQL[] = [];
    for (const [column, value] of [
      [notificationDeliveries.targetId, filter.targetId],
      [notificationDeliveries.callId, filter.callId],
    ] as const) {
      if (value == null) continue;
      if (!z.uuid().safeParse(value).success) return Promise.resolve([]);
      conditions.push(eq(column, value));
    }
    return this.db
      .select()
      .from(notificationDeliveries)
      .where(and(...conditions))
      .orderBy(desc(notificationDeliveries.createdAt), desc(notificationDeliveries.id))
      .limit(first);
  }

  /** The call a link opens, for a person who may see it; null when they may not. */
  async approvalLink(token: string, principal: Principal): Promise<ApprovalLinkView | null> {
    const link = await this.links.verify(this.db, token);
    const call = (await readableCall(this.db, link.callId, principal))?.call ?? null;
    return call ? { call, expiresAt: link.expiresAt, usedAt: link.usedAt } : null;
  }

  /** The decision hook (the lifecycle's `decided` port): a decision that names a link uses it up. */
  async onDecision(
    tx: Tx,
    call: ToolCallRow,
    input: { link?: string | null },
    principal: Principal,
  ): Promise<void> {
    if (input.link) await this.links.consume(tx, call.id, input.link, principal);
  }
}
