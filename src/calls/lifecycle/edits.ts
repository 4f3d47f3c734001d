import { and, eq, or, sql } from 'drizzle-orm';
// A CommonJS package: Node's ESM loader gives it as one default export.
import jsonPatch from 'fast-json-patch';
import { actorOf, type Principal } from '../../core/auth.js';
import { hashArguments, summarize } from '../../core/canonical-json.js';
import { badInput, conflict } from '../../core/errors.js';
import { validateAgainst } from '../../core/json-schema.js';
import { type ArgumentsEdit, type DecisionRecord, personOf } from '../../core/tool-call.js';
import type { Db } from '../../db/client.js';
import type { Tx } from '../../db/tx.js';
import { appendEvents } from '../../journal/append.js';
import type { PolicyService } from '../policy-service.js';
import type { RegistryService } from '../registry-service.js';
import { decideCall } from '../rules/decide.js';
import { approvalsOf, assertMayApprove } from '../rules/quorum.js';
import type { RunService } from '../run-service.js';
import { type RunRow, type ToolCallRow, toolCalls } from '../tables.js';
import type { DecidedHook } from './approvals.js';
import { requestedEvent, snapshotOf } from './call-records.js';

/** A diff larger than this is journaled as a summary; the call's `edit` keeps all of it. */
const JOURNAL_DIFF_BYTES = 4096;

export interface EditDeps {
  db: Db;
  runs: RunService;
  registry: RegistryService;
  policy: PolicyService;
}

export interface EditRequest {
  editedArguments: Record<string, unknown>;
  reason: string | null;
  argumentsHash?: string | null;
  /** The decision hook (the lifecycle's `decided` port), run once the original is locked. */
  onDecided?: DecidedHook;
}

export interface EditOutcome {
  /** The call as the person saw it, now EDITED. */
  original: ToolCallRow;
  /** The call with the edited arguments, approved by the editor (or still awaiting a quorum). */
  replacement: ToolCallRow;
}

/**
 * Approve with edits: the edited arguments are checked against the tool's schema and resolved by
 * policy again, under the run's lock, as a new call for the same caller in the same context. The
 * original is taken out of the budget first, so the replacement takes its place rather than a
 * second one. Anything policy would not allow (denied, unavailable, over budget) refuses the edit
 * with its reason and the transaction records nothing. Otherwise the original ends EDITED with the
 * RFC 6902 diff, and the editor's decision is the replacement's first approval. An earlier denial
 * of identical arguments does not refuse the edit: a person is deciding on them now.
 */
export async function editCall(
  deps: EditDeps,
  current: ToolCallRow,
  request: EditRequest,
  principal: Principal,
): Promise<EditOutcome> {
  if (request.argumentsHash && request.argumentsHash !== current.argumentsHash)
    throw conflict('the arguments changed since you saw them; review the call again', {
      argumentsHash: current.argumentsHash,
    });
  const edited = request.editedArguments;
  const spec = await deps.registry.get(current.name);
  if (!spec) throw badInput(`editedArguments: the tool ${current.name} is no longer registered`);
  const issues = validateAgainst(spec.inputSchema, edited);
  if (issues.length > 0)
    throw badInput(`editedArguments: ${issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ')}`, {
      field: 'editedArguments',
      issues,
    });
  const availability = await deps.policy.availabilityOf([spec]);
  const actor = actorOf(principal);
  const person = personOf(principal);
  const named = person ? { person } : {};
  const now = new Date();

  return deps.db.transaction(async (tx) => {
    const run = await deps.runs.lock(tx, current.runId);
    if (run.status !== 'RUNNING') throw conflict(`run ${run.id} is ${run.status}`, { status: run.status });
    const original = await takeOriginal(tx, current.id);
    if (request.onDecided) await request.onDecided(tx, original);
    assertMayApprove(principal, run.userId, original.selfApprovalForbidden);
    const usage = await deps.runs.usage(tx, run);
    const context = { userId: run.userId, profileId: run.profileId, planNodeId: run.planNodeId };
    const view = await deps.policy.viewFor(
      spec,
      context,
      { usage, caller: original.caller, availability, arguments: edited },
      tx,
    );
    const decision = decideCall({
      name: spec.name,
      spec,
      view,
      issues: [],
      deniedToolStrategy: run.deniedToolStrategy,
      now,
    });
    if (decision.status === 'FAILED') {
      const policyReason = decision.outcome === 'POLICY_DENIED' ? view.reason : decision.error.message;
      throw badInput(`the edited call would not be allowed: ${policyReason}`, {
        field: 'editedArguments',
        policyReason,
        refusal: decision.error.code,
      });
    }
    if (view.approvalRequired)
      assertMayApprove(principal, run.userId, view.budget.forbidSelfApproval === true);
    const argumentsHash = hashArguments(edited);
    const approval: DecisionRecord = {
      approved: true,
      decidedBy: actor,
      ...named,
      reason: request.reason,
      decidedAt: now.toISOString(),
      argumentsHash,
    };
    const required = view.approvalRequired ? approvalsOf(view.budget) : 1;
    const awaiting = required > 1;
    const timeout = view.budget.approvalTimeoutMs;
    const [replacement] = await tx
      .insert(toolCalls)
      .values({
        runId: run.id,
        name: spec.name,
        arguments: edited,
        argumentsHash,
        providerMetadata: original.providerMetadata,
        status: awaiting ? 'AWAITING_APPROVAL' : 'APPROVED',
        approvalRequired: view.approvalRequired,
        policyReason: view.reason,
        tool: snapshotOf(spec, edited),
        countsAgainstBudget: true,
        timeoutMs: view.budget.timeoutMs,
        maxOutputTokens: view.budget.maxOutputTokens,
        approvalExpiresAt: awaiting && timeout ? new Date(now.getTime() + timeout) : null,
        approvalsRequired: required,
        selfApprovalForbidden: view.budget.forbidSelfApproval === true,
        approvals: [approval],
        decision: awaiting ? null : approval,
        caller: original.caller,
        turnId: original.turnId,
        replaces: original.id,
        requestedBy: actor,
        requestedAt: now,
      })
      .returning();
    const diff = jsonPatch.compare(original.arguments as object, edited);
    const edit: ArgumentsEdit = {
      editedBy: actor,
      ...named,
      editedAt: now.toISOString(),
      reason: request.reason,
      diff,
      replacedBy: replacement!.id,
    };
    const [done] = await tx.update(toolCalls).set({ edit }).where(eq(toolCalls.id, original.id)).returning();
    await appendEvents(tx, journalOf(run, done!, replacement!, edit, actor));
    return { original: done!, replacement: replacement! };
  });
}

/** The original leaves the queue and the budget, if it still awaits a decision; else CONFLICT. */
async function takeOriginal(tx: Tx, callId: string): Promise<ToolCallRow> {
  const notExpired = or(
    sql`${toolCalls.approvalExpiresAt} is null`,
    sql`${toolCalls.approvalExpiresAt} > now()`,
  );
  const [row] = await tx
    .update(toolCalls)
    .set({ status: 'EDITED', countsAgainstBudget: false, finishedAt: new Date() })
    .where(and(eq(toolCalls.id, callId), eq(toolCalls.status, 'AWAITING_APPROVAL'), notExpired))
    .returning();
  if (row) return row;
  const [now] = await tx.select().from(toolCalls).where(eq(toolCalls.id, callId)).limit(1);
  throw conflict(`tool call ${callId} is no longer awaiting approval (it is ${now!.status})`, {
    status: now!.status,
  });
}

/** The original's edit, then the replacement's request and the editor's approval, in that order. */
function journalOf(
  run: RunRow,
  original: ToolCallRow,
  replacement: ToolCallRow,
  edit: ArgumentsEdit,
  actor: string,
) {
  const named = edit.person ? { person: edit.person } : {};
  const diffText = JSON.stringify(edit.diff);
  const diff =
    Buffer.byteLength(diffText) <= JOURNAL_DIFF_BYTES
      ? { diff: edit.diff }
      : { diffSummary: summarize(edit.diff), diffOperations: edit.diff.length };
  const approval = replacement.approvals[0]!;
  const decided =
    replacement.status === 'APPROVED'
      ? [
          {
            type: 'tool_call_approved' as const,
            runId: run.id,
            callId: replacement.id,
            actor,
            payload: {
              ...named,
              reason: approval.reason,
              argumentsHash: approval.argumentsHash,
              editOf: original.id,
            },
          },
        ]
      : [
          {
            type: 'tool_call_awaiting_approval' as const,
            runId: run.id,
            callId: replacement.id,
            actor,
            payload: {
              reason: replacement.policyReason,
              expiresAt: replacement.approvalExpiresAt?.toISOString() ?? null,
            },
          },
          {
            type: 'tool_call_approval_added' as const,
            runId: run.id,
            callId: replacement.id,
            actor,
            payload: {
              approvedBy: actor,
              ...named,
              count: 1,
              required: replacement.approvalsRequired,
              reason: approval.reason,
            },
          },
        ];
  return [
    {
      type: 'tool_call_edited' as const,
      runId: run.id,
      callId: original.id,
      actor,
      payload: { ...named, replacedBy: replacement.id, reason: edit.reason, ...diff },
    },
    requestedEvent(replacement, replacement.arguments, actor, { replaces: original.id }),
    ...decided,
  ];
}
