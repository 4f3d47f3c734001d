import { readRunResource, type ToolCallService } from '../../calls/index.js';
import type { ToolCallRow } from '../../calls/tables.js';
import type { Principal } from '../../core/auth.js';
import { hashArguments } from '../../core/canonical-json.js';
import { DomainError } from '../../core/errors.js';
import type { Availability } from '../../core/policy.js';
import type { Db } from '../../db/client.js';
import type { JournalBus } from '../../journal/bus.js';
import { holdForOutcome } from './hold.js';
import { PendingSlots } from './pending-slots.js';
import {
  editNotice,
  errorText,
  type InlineBlobs,
  inlineCandidates,
  type McpToolResult,
  mcpResultOf,
  pendingResult,
  unranText,
} from './rules/results.js';
import { type GatewayContext, type GatewaySessions, RunRefused } from './sessions.js';

export interface GatewayCallOptions {
  /** MCP_APPROVAL_HOLD_MS: how long a tools/call is held for a decision before the pending answer. */
  holdMs: number;
  /** How often a held call with a progressToken sends notifications/progress. */
  progressEveryMs: number;
  /** What the pending answer tells the model to wait before calling again. */
  retryAfterMs: number;
}

export const defaultGatewayCallOptions: GatewayCallOptions = {
  holdMs: 45_000,
  progressEveryMs: 5_000,
  retryAfterMs: 10_000,
};

/** What the MCP request gives a held call: its abort signal and a way to report progress. */
export interface Held {
  signal: AbortSignal;
  progress?: (message: string) => void;
  /** Tells the host once, when the call starts waiting for a person (URL elicitation). */
  waiting?: (callId: string, consoleUrl: string) => void;
  consoleUrl: (callId: string) => string;
  /** The name the host calls the tool by, for the pending answer's text. */
  advertised: string;
  /** The await tool's advertised name where it is offered (not on /mcp/<server>). */
  awaitTool: string | null;
  /** On /mcp/<server>: ties this request to the call it makes, so the upstream's messages during the call reach it. */
  relay?: CallRelay;
}

/** How a host request is tied to the call it makes while the request is open on this process. */
export interface CallRelay {
  /** Runs the call's request (which may execute it at once, here) tied to this host request. */
  during<T>(tool: string, work: () => Promise<T>): Promise<T>;
  /** Ties a call waiting for a person to this host request while it holds it; returns the untie. */
  attach(callId: string): () => void;
}

/** How long taking a slot and requesting its call may take before another request frees the slot. */
const SLOT_STALE_MS = 30_000;
const SLOT_POLL_MS = 20;

/** What the gateway's calls are made with. */
export interface GatewayCallDeps {
  db: Db;
  calls: ToolCallService;
  bus: JournalBus;
  sessions: GatewaySessions;
  /**
   * Runs before a call is requested, while the host's request (and any IdP token it carries) is at
   * hand: a per-user upstream credential is exchanged here (issue 29), since the call may run after
   * an approval, when the host's token has expired. A DomainError's message is the call's answer.
   */
  beforeCall: (principal: Principal, toolName: string) => Promise<void>;
}

const FINAL = new Set(['COMPLETED', 'FAILED', 'DENIED', 'EXPIRED', 'CANCELLED']);
/** Ended without running: the answer says why, not the stored error result. */
const UNRAN = new Set(['DENIED', 'EXPIRED', 'CANCELLED']);

/**
 * A host's tools/call through the lifecycle, held while a person decides. One server state, several
 * wire shapes: the outcome within the hold; else a pending answer, and an identical call (same
 * user, tool and canonical arguments) from any process attaches to the same call until its outcome
 * has been delivered once.
 */
export class GatewayCalls {
  private readonly slots: PendingSlots;
  private readonly db: Db;
  private readonly calls: ToolCallService;
  private readonly bus: JournalBus;
  private readonly sessions: GatewaySessions;
  private readonly beforeCall: GatewayCallDeps['beforeCall'];

  constructor(
    { db, calls, bus, sessions, beforeCall }: GatewayCallDeps,
    private readonly options: GatewayCallOptions,
  ) {
    this.db = db;
    this.calls = calls;
    this.bus = bus;
    this.sessions = sessions;
    this.beforeCall = beforeCall;
    this.slots = new PendingSlots(db, { staleMs: SLOT_STALE_MS, pollMs: SLOT_POLL_MS });
  }

  /**
   * `tool.mayAsk`: whether the policy may make this call wait for a person (the view the host's
   * call was resolved with). A call that cannot wait takes no slot: it runs, or is refused, at once.
   * `tool.availability`, when the resolution read it, is handed to the request, which then does
   * not read it again.
   */
  async call(
    ctx: GatewayContext,
    name: string,
    args: Record<string, unknown>,
    held: Held,
    tool: { mayAsk: boolean; availability?: Availability } = { mayAsk: true },
  ): Promise<McpToolResult> {
    const key = { userId: ctx.principal.userId ?? '', toolName: name, argumentsHash: hashArguments(args) };
    try {
      await this.beforeCall(ctx.principal, name);
    } catch (error) {
      if (DomainError.is(error)) return errorText(error.message);
      throw error;
    }
    // A second round only when another request delivered the outcome this one was waiting for.
    for (let round = 0; round < 3; round++) {
      const slot = tool.mayAsk ? await this.slots.take(key, held.signal) : null;
      let callId = slot?.callId ?? null;
      if (!callId) {
        let requested: ToolCallRow;
        try {
          const request = () => this.request(ctx, name, args, tool.availability);
          requested = await (held.relay ? held.relay.during(name, request) : request());
        } catch (error) {
          if (slot) await this.slots.release(slot.id);
          if (error instanceof RunRefused) return errorText(error.message);
          throw error;
        }
        if (FINAL.has(requested.status)) {
          if (slot) await this.slots.release(slot.id);
          return this.outcome(requested, null);
        }
        callId = requested.id;
        if (slot) await this.slots.fill(slot.id, key, callId);
        else await this.slots.record(key, callId);
      }
      const result = await this.hold(callId, this.options.holdMs, held);
      if (result !== 'DELIVERED_ELSEWHERE') return result;
    }
    return errorText('Identical calls keep taking this call’s outcome; call again.');
  }

  /** gateway.await_approval: waits for a pending call of this user, at most `maxWaitMs` (capped at the hold). */
  async await(ctx: GatewayContext, callId: string, maxWaitMs: number | undefined, held: Held) {
    if (!(await this.slots.isUsers(callId, ctx.principal.userId ?? '')))
      return errorText(`There is no pending call ${callId} of yours.`);
    const ms = Math.min(maxWaitMs ?? this.options.holdMs, this.options.holdMs);
    const result = await this.hold(callId, Math.max(0, ms), { ...held, waiting: undefined }, true);
    return result === 'DELIVERED_ELSEWHERE'
      ? errorText('This call’s outcome was already delivered.')
      : result;
  }

  private async request(
    ctx: GatewayContext,
    name: string,
    args: Record<string, unknown>,
    availability: Availability | undefined,
  ) {
    const runId = await this.sessions.runFor(ctx);
    try {
      return await this.calls.request({ runId, name, arguments: args }, ctx.principal, { availability });
    } catch (error) {
      // The conversation's run was ended from the console: its next call starts a new run.
      if (error instanceof DomainError && error.code === 'CONFLICT' && error.details?.status) {
        const fresh = await this.sessions.runFor(ctx, runId);
        return this.calls.request({ runId: fresh, name, arguments: args }, ctx.principal, { availability });
      }
      throw error;
    }
  }

  private async hold(
    callId: string,
    ms: number,
    held: Held,
    anyDelivery = false,
  ): Promise<McpToolResult | 'DELIVERED_ELSEWHERE'> {
    let waitingSaid = false;
    const detach = held.relay?.attach(callId);
    const final = await holdForOutcome(this.bus, this.calls, callId, {
      ms,
      signal: held.signal,
      tickMs: this.options.progressEveryMs,
      onTick: () => {
        held.progress?.('waiting for a person to approve the call');
        if (!waitingSaid && held.waiting) {
          waitingSaid = true;
          held.waiting(callId, held.consoleUrl(callId));
        }
      },
    }).finally(() => detach?.());
    if (held.signal.aborted)
      throw new DomainError('UNAUTHENTICATED', String(held.signal.reason ?? 'aborted'));
    if (!final) {
      const original = await this.calls.get(callId);
      return pendingResult(
        {
          callId,
          consoleUrl: held.consoleUrl(callId),
          retryAfterMs: this.options.retryAfterMs,
          expiresAt: original?.approvalExpiresAt?.toISOString() ?? null,
        },
        held.advertised,
        held.awaitTool,
      );
    }
    // Exactly once, across processes: one conditional update wins.
    if (!(await this.slots.deliver(callId)) && !anyDelivery) return 'DELIVERED_ELSEWHERE';
    const original = final.id === callId ? final : await this.calls.get(callId);
    return this.outcome(final, original?.edit ? original : null);
  }

  /** The host's answer for a finished call (`edited`: the original a person edited into this one). */
  async outcome(call: ToolCallRow, edited: ToolCallRow | null): Promise<McpToolResult> {
    if (UNRAN.has(call.status) || !call.result)
      return errorText(unranText(call.status, call.error?.message ?? null, call.decision?.feedback ?? null));
    const notice = edited?.edit
      ? editNotice(edited.edit.editedBy, call.arguments, edited.edit.reason)
      : undefined;
    return mcpResultOf(call.result, await this.inline(call), notice);
  }

  private async inline(call: ToolCallRow): Promise<InlineBlobs> {
    const uris = call.result ? inlineCandidates(call.result) : [];
    const blobs = new Map<string, { data: string; mimeType: string }>();
    for (const uri of uris) {
      const row = await readRunResource(this.db, uri, call.runId);
      if (row) blobs.set(uri, { data: Buffer.from(row.content).toString('base64'), mimeType: row.mimeType });
    }
    return blobs;
  }
}
