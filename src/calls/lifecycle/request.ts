import { randomUUID } from 'node:crypto';
import { and, eq, or, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { actorOf, type Principal } from '../../core/auth.js';
import { errorResult } from '../../core/call-results.js';
import { hashArguments } from '../../core/canonical-json.js';
import { conflict } from '../../core/errors.js';
import { validateAgainst } from '../../core/json-schema.js';
import { parseInput } from '../../core/parse-input.js';
import type { Availability, PolicyCaller, RunUsage } from '../../core/policy.js';
import type { ToolError } from '../../core/tool-result.js';
import { awaitWithCommit } from '../../db/pipelined-begin.js';
import { prebuiltInsert } from '../../db/prebuilt.js';
import type { Tx } from '../../db/tx.js';
import { appendEvents, journaledTransaction } from '../../journal/append.js';
import { decideCall } from '../rules/decide.js';
import { approvalsOf } from '../rules/quorum.js';
import { usageLimits } from '../rules/run-limits.js';
import { assertMayRead } from '../run-service.js';
import { type RunRow, type ToolCallRow, toolCalls } from '../tables.js';
import { priorDenial } from './approvals.js';
import { changesOf, MAX_ARGUMENT_BYTES, requestedEvent, snapshotOf } from './call-records.js';
import type { LifecycleContext } from './ports.js';
import { callById } from './readable-call.js';

/**
 * Requesting a call: one transaction whose steps (policy, validation, standing grants,
 * repeat-of-denial, budgets, approval request, journal) share the same locked run row, read in
 * order; the pure decisions live in rules/decide.ts.
 */

/** Built once: Drizzle building the call's insert was the largest part of its SQL building (issue 30). */
const insertCall = prebuiltInsert(toolCalls);

export const MAX_PROVIDER_CALL_ID_LENGTH = 256;
/** A model's call id with the turn suffix it may get when reused (`call_0#t12.2`). */
const MAX_PROVIDER_CALL_KEY_LENGTH = MAX_PROVIDER_CALL_ID_LENGTH + 32;

export const requestToolCallInputSchema = z
  .object({
    runId: z.string().min(1),
    name: z.string().min(1).max(256),
    arguments: z.record(z.string(), z.unknown()).nullish(),
    providerCallId: z.string().min(1).max(MAX_PROVIDER_CALL_KEY_LENGTH).nullish(),
    providerMetadata: z.record(z.string(), z.unknown()).nullish(),
    idempotencyKey: z.string().min(1).max(256).nullish(),
  })
  .refine((i) => Buffer.byteLength(JSON.stringify(i.arguments ?? {})) <= MAX_ARGUMENT_BYTES, {
    path: ['arguments'],
    message: 'must be at most 256 KiB of JSON',
  });

export interface RejectedCallInput {
  runId: string;
  name: string;
  /** What the model sent, even when it is not an object. */
  arguments: unknown;
  providerCallId: string;
  providerMetadata: Record<string, unknown> | null;
  error: ToolError;
  /** The model turn it came from. */
  turnId?: string;
}

export interface RequestOptions {
  caller?: PolicyCaller;
  turnId?: string;
  /**
   * Whether the tool can run now, when the caller just read it to resolve the tool (the MCP
   * gateway): one read per call rather than two.
   */
  availability?: Availability | undefined;
}

/**
 * Seed §5: under the run's row lock, load what the decision needs (policy, usage, schema
 * check), record the request, and apply what `decideCall` makes of it in the same transaction
 * as its journal events. An accepted call then runs at once.
 */
export async function requestCall(
  ctx: LifecycleContext,
  raw: unknown,
  principal: Principal,
  options: RequestOptions = {},
): Promise<ToolCallRow> {
  const input = parseInput(requestToolCallInputSchema, raw);
  // A model's calls (submitted by whoever) are the model's; otherwise a person's token makes a person's call.
  const caller = options.caller ?? callerOf(principal);
  const args = input.arguments ?? {};
  const argumentsHash = hashArguments(args);
  const actor = actorOf(principal);
  const spec = await ctx.registry.get(input.name);
  const availability = options.availability ?? (spec ? await ctx.policy.availabilityOf([spec]) : new Map());

  const requested = await journaledTransaction(ctx.db, async (tx) => {
    const { run, existing } = await openRequest(ctx, tx, principal, { ...input, argumentsHash });
    if (existing) return { call: existing, ready: false, startedUnder: null };

    const context = { userId: run.userId, profileId: run.profileId, planNodeId: run.planNodeId };
    const issues = spec ? validateAgainst(spec.inputSchema, args) : [];
    // Rules with conditions look only at arguments that passed the schema.
    const valid = issues.length === 0 ? args : undefined;
    const viewWith = (usage?: RunUsage) =>
      spec ? ctx.policy.viewFor(spec, context, { usage, caller, availability, arguments: valid }, tx) : null;
    let view = await viewWith();
    // The usage counters are read (under the run's lock, after the calls before this one) only
    // where a limit makes them matter: one statement fewer for the call of an unlimited run.
    if (view && usageLimits(run, view.budget.maxCalls)) view = await viewWith(await ctx.runs.usage(tx, run));
    // A person's standing "yes" for this run; never for one that needs more than one person's
    // approval, nor for a call a person already refused. Both lookups are reads sent together, one
    // round trip, so the grant is read even when the denial then makes it moot.
    const [denied, standing] = view?.approvalRequired
      ? await Promise.all([
          priorDenial(tx, run.id, input.name, argumentsHash),
          valid && approvalsOf(view.budget) === 1
            ? ctx.ports.grants.standing(tx, run.id, input.name, valid)
            : null,
        ])
      : [null, null];
    const grant = denied ? null : standing;
    const now = new Date();
    const decision = decideCall({
      name: input.name,
      spec,
      view,
      // A tool that cannot be called is refused before its arguments matter.
      issues: view?.permitted ? issues : [],
      deniedToolStrategy: run.deniedToolStrategy,
      now,
      priorDenial: denied,
      standingGrant: grant && { grantId: grant.id, grantedBy: grant.createdBy, argumentsHash },
    });
    const ready = decision.outcome === 'ACCEPTED' || decision.outcome === 'GRANTED';
    // Its tool runs here, in this transaction: the request, the tool's writes and the result commit once.
    const inline =
      ready && spec && ctx.ports.inline.runsInTransaction(spec) ? { spec, dispatch: ctx.ports.inline } : null;
    // Any other ready call runs in this process right after the commit, so it is written already
    // started under this process's lease: no claim transaction follows.
    const eager = ready && spec && !inline ? ctx.ports.eager : null;
    // The id is made here so the decision's columns (its result names the call) go in with the row.
    const id = randomUUID();
    const values = {
      id,
      runId: run.id,
      name: input.name,
      arguments: args,
      argumentsHash,
      providerCallId: input.providerCallId ?? null,
      providerMetadata: input.providerMetadata ?? null,
      idempotencyKey: input.idempotencyKey ?? null,
      status: 'REQUESTED' as const,
      approvalRequired: view?.approvalRequired ?? false,
      policyReason: view?.reason ?? null,
      tool: spec ? snapshotOf(spec, args) : null,
      timeoutMs: view?.budget.timeoutMs ?? null,
      maxOutputTokens: view?.budget.maxOutputTokens ?? null,
      approvalsRequired: view?.approvalRequired ? approvalsOf(view.budget) : 1,
      selfApprovalForbidden: view?.budget.forbidSelfApproval === true,
      caller,
      turnId: options.turnId ?? null,
      requestedBy: actor,
      // Millisecond precision (not the column default's microseconds) so that page cursors round-trip exactly.
      requestedAt: now,
      ...changesOf(id, decision),
      ...(eager ? { ...eager.startColumns(now), attempts: 1 } : {}),
    };
    const events = [
      requestedEvent(values, args, actor),
      ...decision.events.map((e) => ({ actor, ...e, runId: run.id, callId: id })),
      ...(eager ? [eager.startedEvent({ ...values, attempts: 1 })] : []),
    ];
    if (inline) {
      // Its row is written once, with its result, after the tool has run.
      const draft = { ...values, attempts: 1 };
      await appendEvents(tx, [...events, inline.dispatch.startedEvent(draft)]);
      const ran = await inline.dispatch.runIn(tx, run, draft, inline.spec, async (columns) => {
        const [row] = await insertCall(tx, { ...values, ...columns, attempts: 1 });
        return row!;
      });
      // Awaited after the commit, which went out behind the insert (see `Ran`).
      return { call: ran.row, ready: false, startedUnder: null };
    }
    // Nothing after the insert needs its row, so on Postgres the events and the COMMIT go out
    // behind it (one round trip for the three) and its row is read once the commit is answered.
    const inserted = insertCall(tx, values).then(([row]) => row!);
    if (!awaitWithCommit(inserted)) await inserted;
    await appendEvents(tx, events);
    if (decision.status === 'FAILED' && decision.failRun)
      await ctx.runs.end(tx, run, 'FAILED', actor, decision.error);
    return { call: inserted, ready, startedUnder: eager && run };
  });
  const { ready, startedUnder } = requested;
  const call = await requested.call;

  if (!ready) return call;
  // `startedUnder`: the run of a call started in the request, as its lock read it.
  const ran = startedUnder
    ? await ctx.ports.eager.runStarted(call, startedUnder)
    : await ctx.ports.dispatch(call.id);
  return ran ?? (await callById(ctx.db, call.id))!;
}

/**
 * A call the model made that cannot run as asked (arguments that are not a JSON object, a name
 * that was never offered): it is the model's mistake, not a policy violation, so it is recorded
 * as a call that failed recoverably at once. The model still gets an answer under its call id.
 * A repeat of the same provider call id returns the recorded call.
 */
export function recordRejected(
  ctx: LifecycleContext,
  input: RejectedCallInput,
  principal: Principal,
): Promise<ToolCallRow> {
  const argumentsHash = hashArguments(input.arguments);
  const actor = actorOf(principal);
  return ctx.db.transaction(async (tx) => {
    const { run, existing } = await openRequest(ctx, tx, principal, { ...input, argumentsHash });
    if (existing) return existing;
    const now = new Date();
    const [created] = await tx
      .insert(toolCalls)
      .values({
        runId: run.id,
        name: input.name,
        arguments: input.arguments,
        argumentsHash,
        providerCallId: input.providerCallId,
        providerMetadata: input.providerMetadata,
        turnId: input.turnId ?? null,
        status: 'FAILED',
        requestedBy: actor,
        requestedAt: now,
        finishedAt: now,
      })
      .returning();
    const call = created!;
    const [failed] = await tx
      .update(toolCalls)
      .set({ error: input.error, result: errorResult(call.id, input.error) })
      .where(eq(toolCalls.id, call.id))
      .returning();
    await appendEvents(tx, [
      requestedEvent(call, input.arguments, actor),
      { type: 'tool_call_failed', runId: run.id, callId: call.id, actor, payload: { error: input.error } },
    ]);
    return failed!;
  });
}

/**
 * Every request starts the same way: the run's row lock, the caller's right to the run, and the
 * answer to a repeat (same provider call id or idempotency key): the recorded call if it asked
 * for the same thing, CONFLICT if not. Only a RUNNING run takes new calls.
 */
async function openRequest(
  ctx: LifecycleContext,
  tx: Tx,
  principal: Principal,
  input: {
    runId: string;
    name: string;
    argumentsHash: string;
    providerCallId?: string | null;
    idempotencyKey?: string | null;
  },
): Promise<{ run: RunRow; existing: ToolCallRow | null }> {
  const run = await ctx.runs.lock(tx, input.runId);
  assertMayRead(principal, run);
  const existing = await findRepeat(tx, run.id, input.providerCallId, input.idempotencyKey);
  if (existing) {
    if (existing.argumentsHash !== input.argumentsHash || existing.name !== input.name) {
      throw conflict(`call ${existing.id} was already requested with this id but other arguments`, {
        callId: existing.id,
      });
    }
    return { run, existing };
  }
  if (run.status !== 'RUNNING') throw conflict(`run ${run.id} is ${run.status}`, { status: run.status });
  return { run, existing: null };
}

async function findRepeat(
  tx: Tx,
  runId: string,
  providerCallId?: string | null,
  idempotencyKey?: string | null,
) {
  const keys: SQL[] = [];
  if (providerCallId) keys.push(eq(toolCalls.providerCallId, providerCallId));
  if (idempotencyKey) keys.push(eq(toolCalls.idempotencyKey, idempotencyKey));
  if (keys.length === 0) return null;
  const [found] = await tx
    .select()
    .from(toolCalls)
    .where(and(eq(toolCalls.runId, runId), or(...keys)))
    .limit(1);
  return found ?? null;
}

/**
 * Approvers and admins are people: through requestToolCall they call on a run themselves (USER_ONLY
 * tools included). Agents and hosts ask on a model's behalf.
 */
function callerOf(principal: Principal): PolicyCaller {
  return principal.role === 'APPROVER' || principal.role === 'ADMIN' ? 'PERSON' : 'MODEL';
}
