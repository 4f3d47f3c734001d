import { and, desc, eq, inArray, lt, notExists, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import { actorOf, type Principal } from '../../core/auth.js';
import { approvalDenied, approvalExpired, denialResult, errorResult } from '../../core/call-results.js';
import { conflict, notFound } from '../../core/errors.js';
import { checkApprovalGrant, grantRequestFields } from '../../core/grant.js';
import type { NewJournalEvent } from '../../core/journal-event.js';
import { type DecisionRecord, personOf } from '../../core/tool-call.js';
import { cutAt } from '../../core/unicode.js';
import type { Db } from '../../db/client.js';
import { prebuilt } from '../../db/prebuilt.js';
import type { Tx } from '../../db/tx.js';
import { appendEvents, journaledTransaction } from '../../journal/append.js';
import { journalEvents } from '../../journal/tables.js';
import type { PriorDenial } from '../rules/decide.js';
import { addApproval } from '../rules/quorum.js';
import { type RunRow, type ToolCallRow, toolCalls } from '../tables.js';
import { MAX_ARGUMENT_BYTES } from './call-records.js';
import type { Ran, WriteRan } from './in-transaction.js';
import type { CallToRun } from './invocation.js';
import { lockedCall } from './readable-call.js';

export const MAX_FEEDBACK_LENGTH = 4000;
/** The journal records that there was feedback and how it starts; the call keeps all of it. */
const JOURNAL_FEEDBACK_LENGTH = 1000;
/** How long before a pending call expires its `tool_call_expiring` warning fires, by default. */
export const DEFAULT_APPROVAL_EXPIRY_WARNING_MS = 60_000;

export const decideInputSchema = z
  .object({
    reason: z.string().nullish(),
    /** The hash of the arguments the approver saw; a mismatch is refused. */
    argumentsHash: z.string().nullish(),
    /** A denial's text for the model; blank is none. */
    feedback: z
      .string()
      .trim()
      .max(MAX_FEEDBACK_LENGTH, `must be at most ${MAX_FEEDBACK_LENGTH} characters`)
      .nullish()
      .transform((text) => text || null),
    /** A denial after which an identical call asks again; by default it is refused at once. */
    allowRetry: z.boolean().nullish(),
    /** Approve with edits: these arguments run instead, as a new call replacing this one. */
    editedArguments: z
      .record(z.string(), z.unknown())
      .nullish()
      .refine((args) => !args || Buffer.byteLength(JSON.stringify(args)) <= MAX_ARGUMENT_BYTES, {
        message: 'must be at most 256 KiB of JSON',
      }),
    /** An approval may stand for later calls too (scoped grants). */
    ...grantRequestFields,
    /** A one-time signed link from a notification; it counts once (the lifecycle's `decided` port). */
    link: z.string().max(4096).nullish(),
  })
  .superRefine(checkApprovalGrant);

export type DecideInput = z.input<typeof decideInputSchema>;
/** Runs in every decision's transaction once the call is locked and still pending; throwing undoes the decision. */
/** A decision's input as parsed once, where the decision enters the lifecycle. */
export type ParsedDecision = z.output<typeof decideInputSchema>;
/** Runs in every decision's transaction once the call is locked and still pending; throwing undoes the decision. */
export type DecidedHook = (tx: Tx, call: ToolCallRow) => Promise<void>;
/** Runs in the approval's transaction once the approval counted; throwing undoes the approval. */
export type AfterApproval = (tx: Tx, call: ToolCallRow) => Promise<void>;

/**
 * An approved call whose tool runs in the approval's transaction (see ToolCallService.decide):
 * `run` runs it there, and the approval's one update writes the decision with the call's start
 * and its result.
 */
export interface InlineApproval {
  startedEvent(call: CallToRun): NewJournalEvent;
  run(tx: Tx, run: RunRow, call: CallToRun, write: WriteRan): Promise<Ran>;
}

/**
 * Exactly one decision counts: the call's row is locked only while it still awaits approval, so
 * of two concurrent deciders one gets it and, once the call is decided, the other a CONFLICT, and
 * nothing changes. Under a quorum each approval below N is added to the call's approvals and the
 * N-th approves it; the same approver twice is a CONFLICT. One denial ends the call.
 */
export interface RecordedDecision {
  callId: string;
  approved: boolean;
  input: ParsedDecision;
  principal: Principal;
  /**
   * Refuses the decision before anything is recorded, in its transaction, given the call as it
   * was before its lock and its run, locked; a call the principal may not see is NOT_FOUND here.
   */
  check(current: ToolCallRow, run: RunRow): void;
  afterApproval?: AfterApproval;
  onDecided?: DecidedHook;
  /** An approval's tool that runs in the approval's transaction runs this way; none otherwise. */
  inline?: (current: ToolCallRow) => Promise<InlineApproval | undefined>;
}

/** The call's row, locked, while it still awaits a decision and has not expired. */
const lockPending = prebuilt((db) =>
  db
    .select()
    .from(toolCalls)
    .where(
      and(
        eq(toolCalls.id, sql.placeholder('callId')),
        eq(toolCalls.status, 'AWAITING_APPROVAL'),
        or(sql`${toolCalls.approvalExpiresAt} is null`, sql`${toolCalls.approvalExpiresAt} > now()`),
      ),
    )
    .for('update'),
);

export async function recordApproval(db: Db, decisionOf: RecordedDecision): Promise<ToolCallRow> {
  const { callId, approved, input, principal, afterApproval, onDecided } = decisionOf;
  const actor = actorOf(principal);
  const reason = input.reason ?? null;
  // Only a decision made with an IdP token names a person: records made with API tokens stay as they were.
  const person = personOf(principal);
  const named = person ? { person } : {};
  const decided = await journaledTransaction(db, async (tx) => {
    const found = await lockedCall(tx, callId);
    if (!found) throw notFound(`no tool call ${callId}`);
    const { call: current, run } = found;
    decisionOf.check(current, run);
    if (input.argumentsHash && input.argumentsHash !== current.argumentsHash) {
      throw conflict('the arguments changed since you saw them; review the call again', {
        argumentsHash: current.argumentsHash,
      });
    }
    const inline = approved ? await decisionOf.inline?.(current) : undefined;
    const decision: DecisionRecord = {
      approved,
      decidedBy: actor,
      ...named,
      reason,
      decidedAt: new Date().toISOString(),
      argumentsHash: current.argumentsHash,
      ...(approved ? {} : { feedback: input.feedback, allowRetry: input.allowRetry ?? false }),
    };
    // The row lock orders concurrent deciders; each re-reads the approvals its predecessor left.
    const [pending] = await lockPending(tx, { callId });
    if (!pending) return null;
    if (onDecided) await onDecided(tx, pending);
    if (!approved) return deny(tx, pending, decision, input.feedback);
    const step = addApproval(pending, decision);
    if (!step.reached) {
      const [row] = await tx
        .update(toolCalls)
        .set({ approvals: step.approvals })
        .where(eq(toolCalls.id, callId))
        .returning();
      await appendEvents(tx, [
        {
          type: 'tool_call_approval_added',
          runId: row!.runId,
          callId,
          actor,
          payload: { approvedBy: actor, ...named, count: step.count, required: step.required, reason },
        },
      ]);
      return row!;
    }
    const approval = { status: 'APPROVED' as const, decision, approvals: step.approvals };
    if (afterApproval) await afterApproval(tx, { ...pending, ...approval });
    const approvedEvent: NewJournalEvent = {
      type: 'tool_call_approved',
      runId: pending.runId,
      callId,
      actor,
      payload: {
        ...named,
        reason,
        argumentsHash: decision.argumentsHash,
        ...(step.required > 1 ? { count: step.count, required: step.required } : {}),
      },
    };
    if (inline) {
      const draft = { ...pending, attempts: pending.attempts + 1 };
      await appendEvents(tx, [approvedEvent, inline.startedEvent(draft)]);
      const ran = await inline.run(tx, run, draft, async (columns) => {
        const [row] = await tx
          .update(toolCalls)
          .set({ ...approval, ...columns, attempts: draft.attempts })
          .where(eq(toolCalls.id, callId))
          .returning();
        return row!;
      });
      return ran.row;
    }
    const [row] = await tx.update(toolCalls).set(approval).where(eq(toolCalls.id, callId)).returning();
    await appendEvents(tx, [approvedEvent]);
    return row!;
  });
  if (!decided) {
    const [now] = await db.select().from(toolCalls).where(eq(toolCalls.id, callId)).limit(1);
    throw conflict(`tool call ${callId} is no longer awaiting approval (it is ${now!.status})`, {
      status: now!.status,
    });
  }
  return decided;
}

/** One denial ends the call, whatever approvals it had gathered towards its quorum. */
async function deny(
  tx: Tx,
  pending: ToolCallRow,
  decision: DecisionRecord,
  feedback: string | null,
): Promise<ToolCallRow> {
  const error = approvalDenied(pending.name, decision.decidedBy, decision.reason, feedback);
  const [row] = await tx
    .update(toolCalls)
    .set({
      status: 'DENIED',
      decision,
      error,
      result: denialResult(pending.id, error, decision),
      finishedAt: new Date(),
    })
    .where(eq(toolCalls.id, pending.id))
    .returning();
  await appendEvents(tx, [
    {
      type: 'tool_call_denied',
      runId: pending.runId,
      callId: pending.id,
      actor: decision.decidedBy,
      payload: {
        ...(decision.person ? { person: decision.person } : {}),
        reason: decision.reason,
        argumentsHash: decision.argumentsHash,
        feedback: feedback && cutAt(feedback, JOURNAL_FEEDBACK_LENGTH),
        allowRetry: decision.allowRetry,
      },
    },
  ]);
  return row!;
}

const latestDenial = prebuilt((db) =>
  db
    .select({ id: toolCalls.id, decision: toolCalls.decision, error: toolCalls.error })
    .from(toolCalls)
    .where(
      and(
        eq(toolCalls.runId, sql.placeholder('runId')),
        eq(toolCalls.name, sql.placeholder('name')),
        eq(toolCalls.argumentsHash, sql.placeholder('argumentsHash')),
        eq(toolCalls.status, 'DENIED'),
      ),
    )
    .orderBy(desc(toolCalls.requestedAt), desc(toolCalls.id))
    .limit(1),
);

/**
 * The latest denial of an identical call in the run, unless its person allowed a retry. Read under
 * the run's row lock, so a denial recorded meanwhile is seen by the next request. Expired calls
 * are not denials (their status is EXPIRED), so they never block an identical call.
 */
export async function priorDenial(
  tx: Tx,
  runId: string,
  name: string,
  argumentsHash: string,
): Promise<PriorDenial | null> {
  const [latest] = await latestDenial(tx, { runId, name, argumentsHash });
  if (!latest?.decision || !latest.error || latest.decision.allowRetry) return null;
  return { callId: latest.id, decision: latest.decision, error: latest.error };
}

/**
 * One sweep, one transaction: calls that expire within `warningMs` get their one
 * `tool_call_expiring` event, then pending calls whose time ran out end as EXPIRED (never a
 * denial: no one said no). A call whose time ran out before any sweep saw it is warned in the
 * same sweep, just before it expires, so every expired call was warned first. Rows are locked with
 * SKIP LOCKED, and warnings are looked up again once the locks are held, in a statement that sees
 * every commit before it: of several processes sweeping at once, exactly one warns each call.
 * `warningMs` 0 turns the warning off.
 */
export function expireApprovals(db: Db, warningMs: number): Promise<{ expired: number; warned: number }> {
  return db.transaction(async (tx) => {
    const now = new Date();
    const warned = warningMs > 0 ? await expiringSoon(tx, now, warningMs) : [];
    const due = await tx
      .select()
      .from(toolCalls)
      .where(and(eq(toolCalls.status, 'AWAITING_APPROVAL'), lt(toolCalls.approvalExpiresAt, now)))
      .for('update', { skipLocked: true });
    const events: NewJournalEvent[] = warned.map((call) => ({
      type: 'tool_call_expiring',
      runId: call.runId,
      callId: call.id,
      actor: 'system',
      payload: {
        expiresAt: call.approvalExpiresAt!.toISOString(),
        inMs: Math.max(0, call.approvalExpiresAt!.getTime() - now.getTime()),
      },
    }));
    for (const call of due) {
      const error = approvalExpired(call.name);
      await tx
        .update(toolCalls)
        .set({ status: 'EXPIRED', error, result: errorResult(call.id, error), finishedAt: now })
        .where(eq(toolCalls.id, call.id));
      events.push({
        type: 'tool_call_expired',
        runId: call.runId,
        callId: call.id,
        actor: 'system',
        payload: { expiresAt: call.approvalExpiresAt!.toISOString() },
      });
    }
    await appendEvents(tx, events);
    return { expired: due.length, warned: warned.length };
  });
}

/** Pending calls that expire within `warningMs` and were never warned, locked for this transaction. */
async function expiringSoon(tx: Tx, now: Date, warningMs: number): Promise<ToolCallRow[]> {
  const warning = eq(journalEvents.type, 'tool_call_expiring');
  const candidates = await tx
    .select()
    .from(toolCalls)
    .where(
      and(
        eq(toolCalls.status, 'AWAITING_APPROVAL'),
        lt(toolCalls.approvalExpiresAt, new Date(now.getTime() + warningMs)),
        notExists(
          tx
            .select({ seq: journalEvents.seq })
            .from(journalEvents)
            .where(and(eq(journalEvents.callId, toolCalls.id), warning)),
        ),
      ),
    )
    .for('update', { skipLocked: true });
  if (candidates.length === 0) return [];
  // Another process may have warned a candidate and committed between this snapshot and the lock.
  const warnedMeanwhile = await tx
    .select({ callId: journalEvents.callId })
    .from(journalEvents)
    .where(
      and(
        warning,
        inArray(
          journalEvents.callId,
          candidates.map((c) => c.id),
        ),
      ),
    );
  const already = new Set(warnedMeanwhile.map((r) => r.callId));
  return candidates.filter((c) => !already.has(c.id));
}
