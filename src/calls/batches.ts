import { and, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import type { Principal } from '../core/auth.js';
import { badInput, DomainError, notFound } from '../core/errors.js';
import { parseInput } from '../core/parse-input.js';
import type { ToolCallStatus } from '../core/tool-call.js';
import { isUuid } from '../core/uuid.js';
import type { Db } from '../db/client.js';
import { journalEvents } from '../journal/tables.js';
import { MAX_FEEDBACK_LENGTH } from './lifecycle/approvals.js';
import type { ToolCallService } from './lifecycle/tool-call-service.js';
import type { RunService } from './run-service.js';
import { type RunRow, type ToolCallRow, toolCalls } from './tables.js';

export const batchVerdicts = ['APPROVE', 'DENY'] as const;

/** More decisions than a turn could have calls is a mistake, not a batch. */
const MAX_BATCH_DECISIONS = 256;

const feedback = z.string().max(MAX_FEEDBACK_LENGTH, `must be at most ${MAX_FEEDBACK_LENGTH} characters`);

export const decideApprovalBatchInputSchema = z
  .object({
    all: z.enum(batchVerdicts).nullish(),
    reason: z.string().nullish(),
    feedback: feedback.nullish(),
    decisions: z
      .array(
        z.object({
          id: z.uuid('must be a call id'),
          verdict: z.enum(batchVerdicts),
          argumentsHash: z.string().nullish(),
          reason: z.string().nullish(),
          feedback: feedback.nullish(),
          allowRetry: z.boolean().nullish(),
        }),
      )
      .max(MAX_BATCH_DECISIONS)
      .nullish(),
  })
  .refine((i) => i.all || i.decisions?.length, {
    message: 'give `all`, `decisions`, or both',
    path: ['all'],
  })
  .refine((i) => new Set(i.decisions?.map((d) => d.id)).size === (i.decisions?.length ?? 0), {
    message: 'a call is listed twice',
    path: ['decisions'],
  });

export type DecideApprovalBatchInput = z.input<typeof decideApprovalBatchInputSchema>;

/** The calls of one model turn that needed a person's approval. */
export interface ApprovalBatch {
  turnId: string;
  run: RunRow;
  /** In the order the turn made them; a replacement right after the call it was edited from. */
  calls: ToolCallRow[];
  pending: number;
}

export interface BatchConflict {
  callId: string;
  status: ToolCallStatus;
  message: string;
}

export interface BatchResult {
  batch: ApprovalBatch;
  decided: ToolCallRow[];
  conflicts: BatchConflict[];
}

/**
 * Issue 14, item 4: a turn's parallel calls decided together. Each call is decided through the
 * same path as a single decision (its own transaction, its row locked while it still awaits
 * approval), so a call decided meanwhile, by another batch or a single decision, is a conflict
 * entry and the others still get theirs: exactly once per call, never all or nothing.
 */
export class ApprovalBatchService {
  constructor(
    private readonly db: Db,
    private readonly runs: RunService,
    private readonly calls: ToolCallService,
  ) {}

  /** Null when the turn made no call this principal may see. */
  async get(turnId: string, principal: Principal): Promise<ApprovalBatch | null> {
    if (!isUuid(turnId)) return null;
    const rows = await this.db.select().from(toolCalls).where(eq(toolCalls.turnId, turnId));
    if (rows.length === 0) return null;
    const run = await this.runs.get(rows[0]!.runId, principal);
    if (!run) return null;
    const calls = await inTurnOrder(
      this.db,
      rows.filter((c) => c.approvalRequired || c.replaces),
    );
    return { turnId, run, calls, pending: calls.filter((c) => c.status === 'AWAITING_APPROVAL').length };
  }

  async decide(turnId: string, raw: DecideApprovalBatchInput, principal: Principal): Promise<BatchResult> {
    const input = parseInput(decideApprovalBatchInputSchema, raw);
    const batch = await this.get(turnId, principal);
    if (!batch) throw notFound(`no approval batch for turn ${turnId}`);
    const ids = new Set(batch.calls.map((c) => c.id));
    const stranger = input.decisions?.find((d) => !ids.has(d.id));
    if (stranger) throw badInput(`decisions: call ${stranger.id} is not a call of turn ${turnId}`);
    const listed = new Set(input.decisions?.map((d) => d.id));
    const plan = [
      ...(input.decisions ?? []),
      ...(input.all
        ? batch.calls
            .filter((c) => c.status === 'AWAITING_APPROVAL' && !listed.has(c.id))
            .map((c) => ({
              id: c.id,
              verdict: input.all!,
              reason: input.reason,
              feedback: input.feedback,
              argumentsHash: null,
              allowRetry: null,
            }))
        : []),
    ];
    const decided: ToolCallRow[] = [];
    const conflicts: BatchConflict[] = [];
    for (const { id, verdict, ...decision } of plan) {
      try {
        decided.push(
          verdict === 'APPROVE'
            ? await this.calls.approve(id, decision, principal)
            : await this.calls.deny(id, decision, principal),
        );
      } catch (failure) {
        if (!DomainError.is(failure) || !['CONFLICT', 'FORBIDDEN'].includes(failure.code)) throw failure;
        const now = await this.calls.get(id);
        conflicts.push({ callId: id, status: now!.status, message: failure.message });
      }
    }
    return { batch: (await this.get(turnId, principal))!, decided, conflicts };
  }
}

/**
 * The order the turn's calls were requested in, read from the journal (its positions are unique
 * and grow from one transaction to the next, where two requests may share a millisecond); a
 * replacement follows the call it was edited from.
 */
async function inTurnOrder(db: Db, calls: ToolCallRow[]): Promise<ToolCallRow[]> {
  if (calls.length === 0) return [];
  const requested = await db
    .select({ callId: journalEvents.callId, seq: journalEvents.seq })
    .from(journalEvents)
    .where(
      and(
        eq(journalEvents.type, 'tool_call_requested'),
        inArray(
          journalEvents.callId,
          calls.map((c) => c.id),
        ),
      ),
    );
  const seqOf = new Map(requested.map((r) => [r.callId!, r.seq]));
  const byId = new Map(calls.map((c) => [c.id, c]));
  const rootOf = (call: ToolCallRow): ToolCallRow => {
    const parent = call.replaces ? byId.get(call.replaces) : undefined;
    return parent ? rootOf(parent) : call;
  };
  const key = (c: ToolCallRow) => [seqOf.get(rootOf(c).id) ?? 0n, seqOf.get(c.id) ?? 0n] as const;
  return [...calls].sort((a, b) => {
    const [ra, sa] = key(a);
    const [rb, sb] = key(b);
    return ra === rb ? (sa < sb ? -1 : sa > sb ? 1 : 0) : ra < rb ? -1 : 1;
  });
}
