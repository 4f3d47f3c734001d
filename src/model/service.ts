// Over 400 lines on purpose: storing a model turn (parse, provider call keys, calls requested, usage)
// is one transaction read top to bottom; the wire formats are the pure adapters in providers/.
import { createHash } from 'node:crypto';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  assertMayRead,
  MAX_ARGUMENT_BYTES,
  MAX_PROVIDER_CALL_ID_LENGTH,
  type PolicyService,
  type RunService,
  type ToolCallService,
} from '../calls/index.js';
import { type RunRow, type ToolCallRow, toolCalls, tools } from '../calls/tables.js';
import { actorOf, type Principal } from '../core/auth.js';
import { argumentsTooLarge } from '../core/call-results.js';
import { canonicalJson } from '../core/canonical-json.js';
import { badInput, conflict, DomainError, notFound } from '../core/errors.js';
import { isJsonObject } from '../core/json.js';
import type { ToolCallRequest } from '../core/tool-call.js';
import type { ToolError } from '../core/tool-result.js';
import { cutAt } from '../core/unicode.js';
import type { Db } from '../db/client.js';
import type { Tx } from '../db/tx.js';
import { answeringCalls, isOpen, originalsOf, outcomeOf } from './call-outcomes.js';
import { type ConversationTurn, renderModelRequest } from './context/render.js';
import { type ContextService, choosePreset, type PresetChoice } from './context/service.js';
import type { ContextFrame } from './context/types.js';
import { providerCallKeys } from './provider-call-keys.js';
import { adapterFor, assertProviderResponse } from './providers/index.js';
import { type NameRules, registeredToolOf } from './providers/names.js';
import type {
  AssistantTurn,
  CallOutcome,
  ParsedResponse,
  ProviderKind,
  ToolDeclarations,
} from './providers/types.js';
import { modelTurns } from './tables.js';

export type ModelTurnRow = typeof modelTurns.$inferSelect;

function oversized(call: ToolCallRequest): ToolError | null {
  const bytes = Buffer.byteLength(JSON.stringify(call.arguments ?? {}));
  return bytes > MAX_ARGUMENT_BYTES ? argumentsTooLarge(call.name, bytes, MAX_ARGUMENT_BYTES) : null;
}

/**
 * Keys for a new turn's calls that no call of the run has. Candidates are checked against the
 * database until none is taken: a suffixed key can be taken too (by an earlier turn whose model
 * sent `call_0#t1`, or a direct request). Usually the native ids are free and one query does. Runs
 * under the run's lock, so no other turn reserves keys meanwhile.
 */
async function reserveCallKeys(tx: Tx, runId: string, nativeIds: readonly string[], turnIndex: number) {
  const taken = new Set<string>();
  for (;;) {
    const keys = providerCallKeys(nativeIds, taken, turnIndex);
    const clashes = [...(await takenCallKeys(tx, runId, keys))].filter((k) => !taken.has(k));
    if (clashes.length === 0) return keys;
    for (const key of clashes) taken.add(key);
  }
}

/** Which of these ids this run already stores a call under, or reserved for an earlier turn's call. */
async function takenCallKeys(tx: Tx, runId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const turnKeys = tx
    .select({ key: sql<string>`jsonb_array_elements_text(${modelTurns.providerCallIds})`.as('key') })
    .from(modelTurns)
    .where(eq(modelTurns.runId, runId))
    .as('turn_keys');
  const [reserved, stored] = await Promise.all([
    tx
      .select({ key: turnKeys.key })
      .from(turnKeys)
      .where(inArray(turnKeys.key, [...ids])),
    tx
      .select({ key: toolCalls.providerCallId })
      .from(toolCalls)
      .where(and(eq(toolCalls.runId, runId), inArray(toolCalls.providerCallId, [...ids]))),
  ]);
  return new Set([...reserved, ...stored].map((r) => r.key!));
}

/** A model response as submitted: a body, or the stream's events / chunks already JSON-decoded. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export interface SubmittedTurn {
  turn: ModelTurnRow;
  calls: ToolCallRow[];
}

function assistantTurnOf(row: ModelTurnRow): AssistantTurn {
  return {
    provider: row.provider,
    native: JSON.parse(row.native) as unknown[],
    parts: row.parts,
  };
}

/**
 * A synthetic id (Gemini without call ids) is derived from the response, and a response without a
 * `responseId` can repeat word for word in a later turn ("read that file again"). Scoped by the
 * turn's index, the repeat is a new call instead of a replay of the old one; resubmitting the same
 * response still finds the same turn, so the same ids.
 */
function scopeSyntheticIds(parsed: ParsedResponse, turnIndex: number): ParsedResponse {
  const scope = (call: ToolCallRequest): ToolCallRequest =>
    call.providerMetadata?.syntheticId === true ? { ...call, id: `${call.id}_t${turnIndex}` } : call;
  return {
    calls: parsed.calls.map((c) => ({ ...c, call: scope(c.call) })),
    assistantTurn: {
      ...parsed.assistantTurn,
      parts: parsed.assistantTurn.parts.map((part) =>
        part.kind === 'tool_call' ? { ...part, call: scope(part.call) } : part,
      ),
    },
  };
}

/**
 * Seed §6, one policy path: a call to a tool that exists but was not offered is not the model
 * inventing a name. It is requested under the tool's own name, so policy refuses it as a
 * violation (or availability as a tool that cannot run now); only a name that matches no
 * registered tool stays a recoverable `unknown_tool`. Arguments that are not an object stay
 * `invalid_arguments`: there is nothing to request.
 */
function resolveUnoffered(
  parsed: ParsedResponse,
  registered: readonly string[],
  rules: NameRules,
): ParsedResponse {
  const renamed = new Map<string, string>();
  const calls = parsed.calls.map((parsedCall) => {
    const { call, error } = parsedCall;
    if (error?.code !== 'unknown_tool') return parsedCall;
    const name = registeredToolOf(call.name, registered, rules);
    if (name === null) return parsedCall;
    renamed.set(call.id, name);
    const args = isJsonObject(call.arguments) ? null : invalidShape(name);
    return { call: { ...call, name }, error: args };
  });
  if (renamed.size === 0) return parsed;
  return {
    calls,
    assistantTurn: {
      ...parsed.assistantTurn,
      parts: parsed.assistantTurn.parts.map((part) =>
        part.kind === 'tool_call' && renamed.has(part.call.id)
          ? { ...part, call: { ...part.call, name: renamed.get(part.call.id)! } }
          : part,
      ),
    },
  };
}

const invalidShape = (name: string): ToolError => ({
  kind: 'RECOVERABLE',
  code: 'invalid_arguments',
  message: `The arguments for "${name}" are not a JSON object.`,
});

const callIdsOf = (turn: AssistantTurn) =>
  turn.parts.flatMap((part) => (part.kind === 'tool_call' ? [part.call.id] : []));

/**
 * Seed §8 at the API: the tools a run's model sees in a provider's format, its responses parsed
 * into calls that go through the normal lifecycle, and the stored turns replayed into the next
 * request (with the frame from context assembly).
 *
 * Over 400 lines on purpose: submitting a turn, mapping its calls and answering them share one
 * run lock and turn numbering; split, each part would need the other's transaction state.
 */
export class ModelService {
  constructor(
    private readonly db: Db,
    private readonly runs: RunService,
    private readonly policy: PolicyService,
    private readonly calls: ToolCallService,
    private readonly context: ContextService,
  ) {}

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
  async submit(
    input: { runId: string; provider: ProviderKind; response: unknown; stream?: boolean | null },
    principal: Principal,
  ): Promise<SubmittedTurn> {
    if (Buffer.byteLength(JSON.stringify(input.response ?? null)) > MAX_RESPONSE_BYTES)
      throw badInput(`response: must be at most ${MAX_RESPONSE_BYTES} bytes of JSON`, { field: 'response' });
    if (input.stream && !Array.isArray(input.response))
      throw badInput('response: a stream is a list of events or chunks', { field: 'response' });
    const run = await this.context.requireRun(input.runId, principal);
    const adapter = adapterFor(input.provider);
    const body = input.stream ? adapter.assembleStream(input.response as unknown[]) : input.response;
    // A body that is no response of the provider is refused here, before any turn or call is written.
    assertProviderResponse(input.provider, body, input.stream === true);
    const { names } = await this.declarations(run, input.provider);
    const registered = (await this.db.select({ name: tools.name }).from(tools)).map((t) => t.name);
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
      const [existing] = await tx
        .select()
        .from(modelTurns)
        .where(and(eq(modelTurns.runId, run.id), eq(modelTurns.responseHash, responseHash)))
        .limit(1);
      if (existing) return { turn: existing, scoped: scopeSyntheticIds(parsed, existing.index) };
      if (locked.status !== 'RUNNING')
        throw conflict(`run ${run.id} is ${locked.status}`, { status: locked.status });
      const [{ count }] = (await tx
        .select({ count: sql<number>`count(*)::int` })
        .from(modelTurns)
        .where(eq(modelTurns.runId, run.id))) as [{ count: number }];
      const scoped = scopeSyntheticIds(parsed, count);
      const nativeIds = scoped.calls.map((c) => c.call.id);
      const long = nativeIds.find((id) => id.length > MAX_PROVIDER_CALL_ID_LENGTH);
      if (long !== undefined)
        throw badInput(
          `response: call id ${cutAt(long, 64)}… is longer than ${MAX_PROVIDER_CALL_ID_LENGTH} characters`,
          { field: 'response' },
        );
      const keys = await reserveCallKeys(tx, run.id, nativeIds, count);
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
   * Each call of a stored turn with its outcome. A call still pending has none yet: that is a
   * CONFLICT, since providers reject a history with an unanswered call. A call that was never
   * requested because its run ended first is answered as cancelled.
   */
  private async conversation(run: RunRow, rows: readonly ModelTurnRow[]): Promise<ConversationTurn[]> {
    const providerIds = rows.flatMap((r) => r.providerCallIds);
    const calls =
      providerIds.length === 0
        ? []
        : await this.db
            .select()
            .from(toolCalls)
            .where(and(eq(toolCalls.runId, run.id), inArray(toolCalls.providerCallId, providerIds)));
    // An edited call is answered by the call that ran instead, under the model's call id.
    const answering = await answeringCalls(this.db, calls);
    const byKey = new Map(calls.map((c) => [c.providerCallId!, answering.get(c.id) ?? c]));
    const pending = [...byKey.values()].filter(isOpen);
    if (pending.length > 0) {
      throw conflict(
        `calls still pending: ${pending.map((c) => `${c.id} (${c.status})`).join(', ')}; answer them after they finish`,
        { pending: pending.map((c) => c.id) },
      );
    }
    return rows.map((row) => {
      const turn = assistantTurnOf(row);
      return {
        turn,
        // The turn's keys follow its calls in order; the answer carries the native id.
        calls: callIdsOf(turn).map((providerCallId, i) => {
          const call = byKey.get(row.providerCallIds[i]!);
          const outcome: CallOutcome = call
            ? outcomeOf(call, providerCallId)
            : {
                callId: providerCallId,
                outcome: 'cancelled',
                message: `the run ended (${run.status}) before this call was requested`,
              };
          return { callId: call?.id ?? `unrequested:${providerCallId}`, outcome };
        }),
      };
    });
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
    return (await this.conversation(run, touched)).flatMap(({ turn, calls }) =>
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
    const preset = choosePreset(input);
    const run = await this.context.requireRun(input.runId, principal);
    const turns = await this.conversation(run, await this.turns(run.id));
    const frame = await this.context.frameFor(run, preset, principal);
    const declarations = await this.declarations(run, input.provider, input.strict);
    const body = renderModelRequest({
      provider: input.provider,
      frame,
      turns,
      tools: declarations.tools,
      names: declarations.names,
    });
    return { body, frame };
  }
}
