import { and, asc, eq, lte, sql } from 'drizzle-orm';
import type { Logger } from '../../core/logger.js';
import type { Db } from '../../db/client.js';
import { appendEvents } from '../../journal/append.js';
import { type RetryPolicy, retryDelay } from './rules/backoff.js';
import {
  DELIVERY_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  signBody,
  TIMESTAMP_HEADER,
} from './rules/signature.js';
import { notificationDeliveries, notificationTargets } from './tables.js';

export type DeliveryRow = typeof notificationDeliveries.$inferSelect;
type TargetRow = typeof notificationTargets.$inferSelect;

export interface DeliveryOptions {
  retry: RetryPolicy;
  /** How long one attempt may take before it counts as failed. */
  timeoutMs: number;
  /** How long a claimed attempt is this process's; longer than the timeout, so no one else resends meanwhile. */
  claimMs: number;
  /** How many deliveries one sweep claims at a time. */
  batch: number;
}

interface Attempt {
  statusCode: number | null;
  error: string | null;
}

/**
 * Claims due deliveries: FOR UPDATE SKIP LOCKED, then the attempt is counted and the next attempt
 * pushed past the claim, all before commit. Another process (or sweep) sees them claimed and
 * skips them, so each attempt is made once; a process that dies mid-attempt leaves the row due
 * again when its claim runs out.
 */
export function claimDue(db: Db, now: Date, options: DeliveryOptions) {
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ id: notificationDeliveries.id })
      .from(notificationDeliveries)
      .where(
        and(eq(notificationDeliveries.status, 'PENDING'), lte(notificationDeliveries.nextAttemptAt, now)),
      )
      .orderBy(asc(notificationDeliveries.nextAttemptAt))
      .limit(options.batch)
      .for('update', { skipLocked: true });
    const claimed: Array<{ delivery: DeliveryRow; target: TargetRow }> = [];
    for (const { id } of due) {
      const [delivery] = await tx
        .update(notificationDeliveries)
        .set({
          attempts: sql`${notificationDeliveries.attempts} + 1`,
          lastAttemptAt: now,
          nextAttemptAt: new Date(now.getTime() + options.claimMs),
        })
        .where(eq(notificationDeliveries.id, id))
        .returning();
      const [target] = await tx
        .select()
        .from(notificationTargets)
        .where(eq(notificationTargets.id, delivery!.targetId));
      claimed.push({ delivery: delivery!, target: target! });
    }
    return claimed;
  });
}

/** Whether any delivery is still to be attempted, due now or later (a retry after its back-off). */
export async function anyPending(db: Db): Promise<boolean> {
  const [row] = await db
    .select({ id: notificationDeliveries.id })
    .from(notificationDeliveries)
    .where(eq(notificationDeliveries.status, 'PENDING'))
    .limit(1);
  return row !== undefined;
}

/** One POST. The error text names what failed, never the URL (a chat webhook's URL is its secret). */
export async function send(
  delivery: DeliveryRow,
  target: TargetRow,
  now: Date,
  timeoutMs: number,
): Promise<Attempt> {
  const body = JSON.stringify(delivery.body);
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'agent-tool-system-notifications',
    [DELIVERY_HEADER]: delivery.id,
    [EVENT_HEADER]: delivery.event,
    [TIMESTAMP_HEADER]: String(timestamp),
  };
  if (target.secret) headers[SIGNATURE_HEADER] = signBody(target.secret, timestamp, body);
  try {
    const response = await fetch(target.url, {
      method: 'POST',
      headers,
      body,
      // A redirect could carry the signed body somewhere the admin did not configure.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    return response.status >= 200 && response.status < 300
      ? { statusCode: response.status, error: null }
      : { statusCode: response.status, error: `HTTP ${response.status}` };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const name = (error as Error).name;
    return {
      statusCode: null,
      error:
        name === 'TimeoutError'
          ? `no answer within ${timeoutMs} ms`
          : `request failed${cause ? ` (${cause})` : ''}`,
    };
  }
}

/**
 * Records an attempt with its journal event, only while this claim still holds (same attempt
 * number, still pending): a late answer after the claim ran out and someone else retried is dropped.
 */
/** One attempt of a delivery to its target, and what the sender's options say follows a failure. */
export interface AttemptMade {
  delivery: DeliveryRow;
  target: TargetRow;
  attempt: Attempt;
  now: Date;
  options: DeliveryOptions;
  logger: Logger;
}

export async function recordAttempt(
  db: Db,
  { delivery, target, attempt, now, options, logger }: AttemptMade,
): Promise<void> {
  const delivered = attempt.error === null;
  const delay = delivered ? null : retryDelay(options.retry, delivery.attempts);
  const status = delivered ? 'DELIVERED' : delay === null ? 'FAILED' : 'PENDING';
  const nextAttemptAt = delay === null ? now : new Date(now.getTime() + delay);
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(notificationDeliveries)
      .set({
        status,
        lastStatusCode: attempt.statusCode,
        lastError: attempt.error,
        nextAttemptAt,
        deliveredAt: delivered ? now : null,
      })
      .where(
        and(
          eq(notificationDeliveries.id, delivery.id),
          eq(notificationDeliveries.attempts, delivery.attempts),
          eq(notificationDeliveries.status, 'PENDING'),
        ),
      )
      .returning();
    if (!row) return;
    await appendEvents(tx, [
      {
        type: delivered ? 'notification_delivered' : 'notification_failed',
        runId: delivery.runId,
        callId: delivery.callId,
        actor: 'system',
        payload: {
          deliveryId: delivery.id,
          targetId: target.id,
          target: target.name,
          event: delivery.event,
          attempt: delivery.attempts,
          statusCode: attempt.statusCode,
          ...(delivered
            ? {}
            : {
                error: attempt.error,
                final: delay === null,
                nextAttemptAt: delay === null ? null : nextAttemptAt.toISOString(),
              }),
        },
      },
    ]);
  });
  if (!delivered)
    logger.warn(
      {
        deliveryId: delivery.id,
        targetId: target.id,
        attempt: delivery.attempts,
        statusCode: attempt.statusCode,
      },
      delay === null ? 'notification failed for good' : 'notification failed; will retry',
    );
}
