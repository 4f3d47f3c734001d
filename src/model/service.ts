import { createHash } from 'node:crypto';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import {
  assertMayRead,
  MAX_ARGUMENT_BYTES,
  MAX_PROVIDER_CALL_ID_LENGTH,
  type PolicyService,
  type RegistryService,
  type RunService,
  type ToolCallService,
} from '../calls/index.js';
import { type RunRow, type ToolCallRow, toolCalls } from '../calls/tables.js';
import { actorOf, type Principal } from '../core/auth.js';
import { argumentsTooLarge } from '../core/call-results.js';
import { canonicalJson } from '../core/canonical-json.js';
import { badInput, conflict, DomainError, notFound } from '../core/errors.js';
import type { ToolCallRequest } from '../core/tool-call.js';
import type { ToolError } from '../core/tool-result.js';
import { cutAt } from '../core/unicode.js';
import type { Db } from '../db/client.js';
import type { Tx } from '../db/tx.js';
import { reserveCallKeys, turnSlot } from './call-key-reservation.js';
import { originalsOf } from './call-outcomes.js';
import { renderModelRequest } from './context/render.js';
import { type ContextService, choosePreset, type PresetChoice } from './context/service.js';
import type { ContextFrame } from './context/types.js';
import { storedConversation } from './conversation.js';
import { resolveUnoffered, scopeSyntheticIds } from './parsed-calls.js';
import { adapterFor, assertProviderResponse } from './providers/index.js';
import type { ProviderKind, ToolDeclarations } from './providers/types.js';
import { type ModelTurnRow, modelTurns } from './tables.js';

function oversized(call: ToolCallRequest): ToolError | null {
  const bytes = Buffer.byteLength(JSON.stringify(call.arguments ?? {}));
  return bytes > MAX_ARGUMENT_BYTES ? argumentsTooLarge(call.name, bytes, MAX_ARGUMENT_BYTES) : null;
}

/** A model response as submitted: a body, or the stream's events / chunks already JSON-decoded. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export interface SubmitInput {
  runId: string;
  provider: ProviderKind;
  response: unknown;
  stream?: boolean | null;
}

export interface ModelServiceDeps {
  db: Db;
  runs: RunService;
  policy: PolicyService;
  calls: ToolCallService;
  context: ContextService;
  registry: RegistryService;
}

export interface SubmitOptions {
  offered?: ToolDeclarations['names'];
  onStored?: (tx: Tx, turn: ModelTurnRow) => Promise<void>;
}

export interface SubmittedTurn {
  turn: ModelTurnRow;
  calls: ToolCallRow[];
}

/**
 * Seed §8 at the API: the tools a run's model sees in a provider's format, its responses parsed
 * into calls that go through the normal lifecycle, and the stored turns replayed into the next
 * request (with the frame from context assembly).
 *
 * Submitting a turn is one transaction under the run's lock, read here top to bottom; what it
 * uses lives beside it: parsed-calls.ts (what a parsed response's calls become before they are
 * requested), call-key-reservation.ts (what storing a turn reads, and the keys its calls are
 * stored under) and conversation.ts (the stored turns with their calls' outcomes, for the next
 * request).
 */
export class ModelService {
  private readonly db: Db;
  private readonly runs: RunService;
  private readonly policy: PolicyService;
  private readonly calls: ToolCallService;
  private readonly context: ContextService;
  private readonly registry: RegistryService;

  constructor(deps: ModelServiceDeps) {
    ({
      db: this.db,
      runs: this.runs,
      policy: this.policy,
      calls: this.calls,
      context: this.context,
      registry: this.registry,
    } = deps);
  }

  /** Only tools the run's policy makes visible, resolved as its calls are. */
  async declarations(
    run: RunRow,
    provider: ProviderKind,
    strict?: boolean | null,
  ): Promise<ToolDeclarations> {
    const usage = await this.runs.usage(this.db, run);
    const effective = await this.policy.effectiveTools(
      { userId: run.userId, profileId: run.profileId, planNodeId: run.planNodeId },
      usage,
    );
    const visible = effective.filter((e) => e.visible).map((e) => e.tool);
    return adapterFor(provider).toolDeclarations(visible, strict == null ? {} : { strict });
  }

  async providerTools(runId: string, provider: ProviderKind, strict: boolean | null, principal: Principal) {
    const run = await this.context.requireRun(runId, principal);
    return this.declarations(run, provider, strict);
  }

  /**
   * Stores the assistant turn, then requests each call in order. A call the adapter could not
   * make sense of is recorded as failed (recoverable) so that it still gets an answer. Submitting
   * the same response again returns the same turn and the same calls.
   */
  async submit(input: SubmitInput, principal: Principal): Promise<SubmittedTurn> {
    return this.submitFor(await this.context.requireRun(input.runId, principal), input, principal);
  }

  /**
   * submit for a run the caller has read (the agent loop, once per round): `offered` are the tool
   * names of the request the response answers, so they need not be resolved again; `onStored`
   * writes in the transaction that stores a new turn (not one found by its hash), before its calls.
   */
  async submitFor(
    run: RunRow,
    input: SubmitInput,
    principal: Principal,
    { offered, onStored }: SubmitOptions = {},
  ): Promise<SubmittedTurn> {
    assertMayRead(principal, run);
    if (Buffer.byteLength(JSON.stringify(input.response ?? null)) > MAX_RESPONSE_BYTES)
      throw badInput(`response: must be at most ${MAX_RESPONSE_BYTES} bytes of JSON`, { field: 'response' });
    if (input.stream && !Array.isArray(input.response))
      throw badInput('response: a stream is a list of events or chunks', { field: 'response' });
    const adapter = adapterFor(input.provider);
    const body = input.stream ? adapter.assembleStream(input.response as unknown[]) : input.response;
    // A body that is no response of the provider is refused here, before any turn or call is written.
    assertProviderResponse(input.provider, body, input.stream === true);
    const names = offered ?? (await this.declarations(run, input.provider)).names;
    // The registry's own cache (dropped on every change, in every process), not a read per turn.
    const registered = (await this.registry.all()).map((t) => t.name);
    const parsed = resolveUnoffered(adapter.parseResponse(body, names), registered, adapter.nameRules);
    const native = JSON.stringify(parsed.assistantTurn.native);
    // The whole body, not just the turn: a provider's response id (and usage) tells a model that
    // repeats itself from a client that retries the same submission.
    const responseHash = createHash('sha256')
      .update(canonicalJson({ provider: input.provider, response: input.response ?? null }))
      .digest('hex');

    const { turn, scoped } = await this.db.transaction(async (tx) => {
      const locked = await this.runs.lock(tx, run.id);
      assertMayRead(principal, locked);
      // A synthetic id (a call that came without one) takes the turn's index, not known yet: only
      // the provider's own ids are looked up with the count, the rest by reserveCallKeys.
      const ownIds = parsed.calls.filter((c) => c.call.providerMetadata?.syntheticId !== true);
      const { existing, count, known } = await turnSlot(
        tx,
        run.id,
        responseHash,
        ownIds.map((c) => c.call.id),
      );
      if (existing) return { turn: existing, scoped: scopeSyntheticIds(parsed, existing.index) };
      if (locked.status !== 'RUNNING')
        throw conflict(`run ${run.id} is ${locked.status}`, { status: locked.status });
      const scoped = scopeSyntheticIds(parsed, count);
      const nativeIds = scoped.calls.map((c) => c.call.id);
      const long = nativeIds.find((id) => id.length > MAX_PROVIDER_CALL_ID_LENGTH);
      if (long !== undefined)
        throw badInput(
          `response: call id ${cutAt(long, 64)}… is longer than ${MAX_PROVIDER_CALL_ID_LENGTH} characters`,
          { field: 'response' },
        );
      const keys = await reserveCallKeys(tx, run.id, nativeIds, count, known);
      const [created] = await tx
        .insert(modelTurns)
        .values({
          runId: run.id,
          index: count,
          provider: input.provider,
          responseHash,
          native,
          parts: scoped.assistantTurn.parts,
          providerCallIds: keys,
          createdBy: actorOf(principal),
        })
        .returning();
      await onStored?.(tx, created!);
      return { turn: created!, scoped };
    });

    const calls: ToolCallRow[] = [];
    for (const [i, { call, error }] of scoped.calls.entries()) {
      const request = {
        runId: run.id,
        name: call.name,
        providerCallId: turn.providerCallIds[i]!,
        providerMetadata: call.providerMetadata,
      };
      const refusal = error ?? oversized(call);
      try {
        calls.push(
          refusal
            ? await this.calls.recordRejected(
                { ...request, arguments: call.arguments, error: refusal, turnId: turn.id },
                principal,
              )
            : await this.calls.request({ ...request, arguments: call.arguments }, principal, {
                caller: 'MODEL',
                turnId: turn.id,
              }),
        );
      } catch (failure) {
        // A call before this one ended the run: the rest cannot be requested, and their answers say so.
        if (DomainError.is(failure) && failure.code === 'CONFLICT' && failure.details?.status) break;
        throw failure;
      }
    }
    return { turn, calls };
  }

  async turns(runId: string): Promise<ModelTurnRow[]> {
    return this.db
      .select()
      .from(modelTurns)
      .where(eq(modelTurns.runId, runId))
      .orderBy(asc(modelTurns.index));
  }

  /**
   * The native answers to the turns the given calls belong to: every call of such a turn is
   * answered, since providers reject a turn with an unanswered call.
   */
  async toolResultMessages(
    input: { runId: string; provider: ProviderKind; callIds: readonly string[] },
    principal: Principal,
  ): Promise<unknown[]> {
    const run = await this.context.requireRun(input.runId, principal);
    const ids = [...new Set(input.callIds)];
    const valid = ids.filter((id) => z.uuid().safeParse(id).success);
    const rows =
      valid.length === 0
        ? []
        : await this.db
            .select()
            .from(toolCalls)
            .where(and(eq(toolCalls.runId, run.id), inArray(toolCalls.id, valid)));
    const missing = ids.filter((id) => !rows.some((r) => r.id === id));
    if (missing.length > 0) throw notFound(`run ${run.id} has no tool calls ${missing.join(', ')}`);
    // A replacement of an edited call answers under the original's call id.
    const asked = await originalsOf(this.db, rows);
    const turns = await this.turns(run.id);
    const touched = turns.filter((t) =>
      asked.some((r) => r.providerCallId && t.providerCallIds.includes(r.providerCallId)),
    );
    const orphans = asked.filter(
      (r) => !touched.some((t) => r.providerCallId && t.providerCallIds.includes(r.providerCallId)),
    );
    if (orphans.length > 0) {
      throw badInput(
        `calls ${orphans.map((r) => r.id).join(', ')} were not made by a submitted model response, so they have no native answer`,
        { field: 'callIds' },
      );
    }
    const adapter = adapterFor(input.provider);
    const { names } = await this.declarations(run, input.provider);
    return (await storedConversation(this.db, run, touched)).flatMap(({ turn, calls }) =>
      adapter.toolResultMessages(
        turn,
        calls.map((c) => c.outcome),
        names,
      ),
    );
  }

  /** The provider's next request: frame, tool declarations and the stored conversation. */
  async modelRequest(
    input: { runId: string; provider: ProviderKind; strict?: boolean | null } & PresetChoice,
    principal: Principal,
  ): Promise<{ body: Record<string, unknown>; frame: ContextFrame }> {
    const run = await this.context.requireRun(input.runId, principal);
    const { body, frame } = await this.requestFor(run, input, principal);
    return { body, frame };
  }

  /** modelRequest for a run the caller has read (the agent loop), with the tool names it offers. */
  async requestFor(
    run: RunRow,
    input: { provider: ProviderKind; strict?: boolean | null } & PresetChoice,
    principal: Principal,
  ): Promise<{ body: Record<string, unknown>; frame: ContextFrame; names: ToolDeclarations['names'] }> {
    assertMayRead(principal, run);
    const preset = choosePreset(input);
    const turns = await storedConversation(this.db, run, await this.turns(run.id));
    const frame = await this.context.frameFor(run, preset, principal);
    const declarations = await this.declarations(run, input.provider, input.strict);
    const body = renderModelRequest({
      provider: input.provider,
      frame,
      turns,
      tools: declarations.tools,
      names: declarations.names,
    });
    return { body, frame, names: declarations.names };
  }
}
