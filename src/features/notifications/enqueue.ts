import { randomUUID } from 'node:crypto';
import { eq, inArray, sql } from 'drizzle-orm';
import { runs, toolCalls } from '../../calls/tables.js';
import type { JournalEvent } from '../../core/journal-event.js';
import type { Db } from '../../db/client.js';
import type { Tx } from '../../db/tx.js';
import { journalHorizon, readEvents } from '../../journal/read.js';
import { journalEvents } from '../../journal/tables.js';
import type { ApprovalLinks } from './links.js';
import { kindOf, notifyingEventTypes } from './rules/events.js';
import { bodyFor, type CallSummary } from './rules/messages.js';
import type { NotificationEventKind } from './shapes.js';
import { notificationCursor, notificationDeliveries, notificationTargets } from './tables.js';

const PAGE = 200;

/** Notices about a pending call are pointless once it is decided; the decision itself still goes out. */
const ONLY_WHILE_PENDING: ReadonlySet<NotificationEventKind> = new Set([
  'APPROVAL_REQUESTED',
  'APPROVAL_EXPIRING',
]);

/** The first enqueuer starts at the journal's current end: history before notifications existed is not sent. */
export async function ensureCursor(db: Db): Promise<void> {
  await db.execute(sql`
    insert into notification_cursor (id, last_seq)
    select true, ats_journal_horizon() - 1
    on conflict (id) do nothing`);
}

/**
 * Called by a writer that enables a target (creates one enabled, or enables one that was off): while
 * no target is enabled the notifier reads nothing, so the cursor may lag far behind, and the events
 * behind it could only have been sent to targets that did not exist. So when no other target is
 * enabled the cursor jumps to just below the journal's horizon: every event committed after this
 * target is sent to it (a transaction still running has positions above the horizon), and so may a
 * few committed just before it, above the horizon too. Two targets enabled at once may both move
 * it without seeing each other: both are new, so neither misses an event it should have had. One
 * enabled while the only other is being disabled may not move it, and gets the events the
 * notifier was behind on: extra deliveries, never a missed one.
 */
export async function startAtJournalEnd(tx: Tx, targetId: string): Promise<void> {
  await tx.execute(sql`
    update notification_cursor
    set last_seq = greatest(last_seq, ats_journal_horizon() - 1)
    where not exists (select 1 from notification_targets where enabled and id <> ${targetId})`);
}

/** Whether there is anything to enqueue for: with no enabled target no event makes a delivery. */
export async function anyTargetEnabled(db: Db): Promise<boolean> {
  const [row] = await db
    .select({ id: notificationTargets.id })
    .from(notificationTargets)
    .where(eq(notificationTargets.enabled, true))
    .limit(1);
  return row !== undefined;
}

async function summaries(tx: Tx, callIds: string[]): Promise<Map<string, CallSummary>> {
  if (callIds.length === 0) return new Map();
  const rows = await tx
    .select({ call: toolCalls, userId: runs.userId })
    .from(toolCalls)
    .innerJoin(runs, eq(runs.id, toolCalls.runId))
    .where(inArray(toolCalls.id, callIds));
  return new Map(
    rows.map(({ call, userId }) => [
      call.id,
      {
        id: call.id,
        runId: call.runId,
        userId,
        tool: call.name,
        title: call.tool?.displayName ?? call.tool?.title ?? null,
        approvalMessage: call.tool?.approvalMessage ?? null,
        status: call.status,
        argumentsHash: call.argumentsHash,
        approvalExpiresAt: call.approvalExpiresAt,
      },
    ]),
  );
}

/**
 * Turns the journal past the cursor into delivery rows and moves the cursor, in one transaction.
 * It reads below the journal's horizon, under which no event can still appear, so nothing after
 * the cursor is ever skipped; the cursor row is taken with SKIP LOCKED, so one process enqueues at
 * a time and the others go on to sending. A crash before commit leaves the cursor where it was: the
 * same events are read again. Returns whether a full page was read (more may be waiting).
 */
export function enqueueFromJournal(db: Db, links: ApprovalLinks, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [cursor] = await tx.select().from(notificationCursor).for('update', { skipLocked: true });
    if (!cursor) return false;
    // Read first: every position below it is final, so a short page lets the cursor jump there.
    const horizon = await journalHorizon(tx);
    if (horizon - 1n <= cursor.lastSeq) return false;
    const { events: page } = await readEvents(tx, {
      afterSeq: cursor.lastSeq,
      before: horizon,
      limit: PAGE,
      where: inArray(journalEvents.type, notifyingEventTypes),
    });
    const targets = await tx.select().from(notificationTargets).where(eq(notificationTargets.enabled, true));
    const calls = await summaries(tx, [...new Set(page.flatMap((e) => (e.callId ? [e.callId] : [])))]);
    for (const event of page) {
      const kind = kindOf(event);
      const call = event.callId ? calls.get(event.callId) : undefined;
      if (!kind || !call || (ONLY_WHILE_PENDING.has(kind) && call.status !== 'AWAITING_APPROVAL')) continue;
      for (const target of targets.filter((t) => t.events.includes(kind)))
        await enqueue(tx, links, { target, kind, event, call, now });
    }
    const full = page.length === PAGE;
    await tx.update(notificationCursor).set({ lastSeq: full ? page[PAGE - 1]!.seq : horizon - 1n });
    return full;
  });
}

/** One delivery owed: a target told of one event of a call. */
interface Owed {
  target: typeof notificationTargets.$inferSelect;
  kind: NotificationEventKind;
  event: JournalEvent;
  call: CallSummary;
  now: Date;
}

async function enqueue(
  tx: Tx,
  links: ApprovalLinks,
  { target, kind, event, call, now }: Owed,
): Promise<void> {
  const deliveryId = randomUUID();
  const link =
    target.consoleUrl && kind !== 'CALL_DECIDED'
      ? await links.issue(tx, call.id, target.id, call.approvalExpiresAt)
      : null;
  const body = bodyFor(target.kind, {
    deliveryId,
    event: kind,
    source: event,
    call,
    link: link && {
      url: `${target.consoleUrl}/#/calls/${call.id}?link=${link.token}`,
      expiresAt: link.expiresAt,
    },
  });
  await tx
    .insert(notificationDeliveries)
    .values({
      id: deliveryId,
      targetId: target.id,
      event: kind,
      eventSeq: event.seq,
      callId: call.id,
      runId: call.runId,
      body,
      nextAttemptAt: now,
    })
    .onConflictDoNothing();
}
