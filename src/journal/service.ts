import { setTimeout } from 'node:timers/promises';
import { inArray } from 'drizzle-orm';
import { Repeater } from 'graphql-yoga';
import { countPendingApprovals, pendingApprovalsWhere } from '../calls/approval-queue.js';
import {
  type ApprovalQueueEventKind,
  type ApprovalQueueFilter,
  matchesQueueFilter,
  needsRunUser,
} from '../calls/rules/queue-filter.js';
import { type RunService, runScope } from '../calls/run-service.js';
import { runs, toolCalls } from '../calls/tables.js';
import type { ToolCallRow, ToolCallService } from '../calls/tool-call-service.js';
import { userScopeOf } from '../core/access.js';
import type { Principal } from '../core/auth.js';
import { badInput, forbidden, notFound } from '../core/errors.js';
import type { JournalEvent, JournalEventType } from '../core/journal-event.js';
import type { Db } from '../db/client.js';
import type { JournalBus } from './bus.js';
import { type JournalFilter, readEvents } from './read.js';
import { journalEvents } from './tables.js';

export function parseSeq(value: string | null | undefined): bigint | null {
  if (value == null) return null;
  if (!/^\d{1,19}$/.test(value))
    throw badInput(`afterSeq must be a journal position (digits), not ${JSON.stringify(value)}`);
  return BigInt(value);
}

export interface ApprovalQueueEvent {
  kind: ApprovalQueueEventKind;
  call: ToolCallRow | null;
  /** How many calls the subscriber holds after this event. */
  pending: number;
}

const queueEvents = new Set<JournalEventType>([
  'tool_call_awaiting_approval',
  'tool_call_approved',
  'tool_call_denied',
  'tool_call_expired',
  'tool_call_cancelled',
  // An edited call leaves the queue; its replacement enters it only if it still awaits approvals.
  'tool_call_edited',
  // An approval toward a quorum changes a call that stays in the queue.
  'tool_call_approval_added',
]);

/**
 * Which events of a filter a principal gets: all of them (the filter already names a run or call
 * it may read, or it sees every run), or only those of runs in its scope. Events outside runs
 * (registry, policy, MCP, admin) belong to no user, so only all-users scopes see them.
 */
export type JournalReach = { all: true } | { all: false; principal: Principal };

/** How long a journal query waits for older transactions to end before it answers with what is settled. */
const SETTLE_WAIT_MS = 2000;

/** Enough run ids to cover a busy dashboard's day; past it the cache starts over rather than grow. */
const MAX_CACHED_RUNS = 10_000;

export class JournalService {
  constructor(
    private readonly db: Db,
    private readonly bus: JournalBus,
    private readonly runs: RunService,
    private readonly calls: ToolCallService,
  ) {}

  /**
   * Events after a position, in order; with a limited reach, only events of runs in its scope (in
   * SQL). Committed events still above the horizon are waited for (up to `SETTLE_WAIT_MS`), so a
   * client reads its own writes; past the wait it gets the settled part, never a page that would
   * make it skip an event when it resumes after the last one.
   */
  async read(
    filter: JournalFilter & { afterSeq?: bigint | null; limit: number },
    reach: JournalReach = { all: true },
  ): Promise<JournalEvent[]> {
    const scope = reach.all ? undefined : runScope(reach.principal);
    const query = scope
      ? {
          ...filter,
          where: inArray(journalEvents.runId, this.db.select({ id: runs.id }).from(runs).where(scope)),
        }
      : filter;
    const deadline = Date.now() + SETTLE_WAIT_MS;
    for (let pause = 2; ; pause = Math.min(pause * 2, 100)) {
      const page = await readEvents(this.db, query);
      if (!page.unsettled || page.events.length >= filter.limit || Date.now() >= deadline) return page.events;
      await setTimeout(pause);
    }
  }

  /** One call's events, every committed one: a lookup nobody resumes from, so no horizon to wait for. */
  async eventsOfCall(callId: string, limit: number): Promise<JournalEvent[]> {
    return (await readEvents(this.db, { callId, limit, unbounded: true })).events;
  }

  /**
   * What a principal may read of the journal under this filter. An agent reads only the runs its
   * token created, so it must name one (or a call of one): anything else is FORBIDDEN, as it always
   * was. People bound to users read the runs of those users: a named run or call outside them is
   * NOT_FOUND, and without one they get only their runs' events. Extensions do not read the journal.
   */
  async authorize(principal: Principal, filter: JournalFilter): Promise<JournalReach> {
    if (principal.role === 'EXTENSION') throw forbidden('extensions do not read the journal');
    if (principal.role === 'AGENT') {
      await this.authorizeAgent(principal, filter);
      return { all: true };
    }
    if (userScopeOf(principal).all) return { all: true };
    if (filter.callId && !(await this.calls.get(filter.callId, principal)))
      throw notFound(`no tool call ${filter.callId}`);
    if (filter.runId && !(await this.runs.get(filter.runId, principal)))
      throw notFound(`no run ${filter.runId}`);
    return filter.callId || filter.runId ? { all: true } : { all: false, principal };
  }

  private async authorizeAgent(principal: Principal, filter: JournalFilter): Promise<void> {
    let runId = filter.runId ?? null;
    if (filter.callId) {
      const call = await this.calls.get(filter.callId);
      if (!call) throw forbidden('agents read the journal of their own runs only');
      if (runId && runId !== call.runId) throw forbidden('that call is not in that run');
      runId = call.runId;
    }
    if (!runId || !(await this.runs.get(runId, principal))) {
      throw forbidden('agents read the journal of their own runs only: pass the runId of one');
    }
  }

  /** Replays and streams the filter's events; with a limited reach, only those of runs in its scope. */
  stream(filter: JournalFilter, afterSeq: bigint | null, reach: JournalReach = { all: true }) {
    const events = this.bus.stream(filter, afterSeq);
    if (reach.all) return events;
    const mayRead = this.runVisibility(reach.principal);
    return new Repeater<JournalEvent>(async (push, stop) => {
      void stop.then(() => events.return());
      for await (const event of events) {
        if (await mayRead(event.runId)) await push(event);
      }
      await stop;
    });
  }

  /**
   * Whether a principal sees the run an event belongs to. A run's user and creating token never
   * change, so each answer is kept for the rest of the subscription: one lookup per run, not per
   * event. An event of no run is seen only by all-users scopes.
   */
  private runVisibility(principal: Principal): (runId: string | null | undefined) => Promise<boolean> {
    if (principal.role !== 'AGENT' && userScopeOf(principal).all) return async () => true;
    const seen = new Map<string, boolean>();
    return async (runId) => {
      if (!runId) return false;
      let visible = seen.get(runId);
      if (visible === undefined) {
        visible = (await this.runs.get(runId, principal)) !== null;
        if (seen.size >= MAX_CACHED_RUNS) seen.clear();
        seen.set(runId, visible);
      }
      return visible;
    };
  }

  /** The calls awaiting approval that a principal sees and a filter keeps, one page of them. */
  pendingApprovals(
    principal: Principal,
    filter: ApprovalQueueFilter | null | undefined,
    page: Omit<Parameters<ToolCallService['page']>[0], 'where' | 'status' | 'seenBy'>,
  ): Promise<ToolCallRow[]> {
    return this.calls.page({ ...page, where: pendingApprovalsWhere(this.db, principal, filter) });
  }

  countPendingApprovals(
    principal: Principal,
    filter: ApprovalQueueFilter | null | undefined,
  ): Promise<number> {
    return countPendingApprovals(this.db, pendingApprovalsWhere(this.db, principal, filter));
  }

  /**
   * The calls awaiting approval now (ENTERED each, oldest first, then SNAPSHOT_END), then each
   * call as it enters or leaves the queue, read fresh from its row so a dashboard shows the
   * current state. Only calls of runs the principal sees and the filter keeps: the snapshot is
   * filtered in SQL, the changes by the same rules in memory. A call leaves only if it was
   * listed, so `pending` is exactly the calls a client holds. A listed call that changes while it
   * waits (an approval toward its quorum) is ENTERED again, as it is now: clients replace it.
   */
  approvalQueueEvents(
    principal: Principal,
    filter: ApprovalQueueFilter | null | undefined,
  ): Repeater<ApprovalQueueEvent> {
    return new Repeater<ApprovalQueueEvent>(async (push, stop) => {
      const mayRead = this.runVisibility(principal);
      const runUser = this.runUsers(needsRunUser(filter));
      // Fix the position before taking the snapshot: whatever commits after it is replayed.
      const from = await this.bus.now();
      const snapshot = await this.db
        .select()
        .from(toolCalls)
        .where(pendingApprovalsWhere(this.db, principal, filter))
        .orderBy(toolCalls.requestedAt, toolCalls.id);
      const listed = new Set(snapshot.map((c) => c.id));
      const changes = this.bus.stream({}, from, (e) => queueEvents.has(e.type) && e.callId != null);
      void stop.then(() => changes.return());
      let pending = 0;
      for (const call of snapshot) await push({ kind: 'ENTERED', call, pending: ++pending });
      await push({ kind: 'SNAPSHOT_END', call: null, pending });
      for await (const event of changes) {
        const callId = event.callId!;
        if (event.type === 'tool_call_awaiting_approval') {
          if (listed.has(callId) || !(await mayRead(event.runId))) continue;
          const call = await this.calls.get(callId);
          if (!call || !matchesQueueFilter(filter, call, await runUser(call.runId))) continue;
          listed.add(callId);
          await push({ kind: 'ENTERED', call, pending: listed.size });
        } else if (event.type === 'tool_call_approval_added') {
          const call = listed.has(callId) ? await this.calls.get(callId) : null;
          if (call) await push({ kind: 'ENTERED', call, pending: listed.size });
        } else if (listed.delete(callId)) {
          const call = await this.calls.get(callId);
          if (call) await push({ kind: 'LEFT', call, pending: listed.size });
        }
      }
      await stop;
    });
  }

  /** The first version of the queue: the same calls, as bare ToolCalls, with no marker where the snapshot ends. */
  approvalQueue(principal: Principal, filter?: ApprovalQueueFilter | null): Repeater<ToolCallRow> {
    const events = this.approvalQueueEvents(principal, filter);
    return new Repeater<ToolCallRow>(async (push, stop) => {
      void stop.then(() => events.return());
      for await (const event of events) if (event.call) await push(event.call);
      await stop;
    });
  }

  /** A run's user, kept for the subscription (it never changes); no lookups when the filter needs none. */
  private runUsers(needed: boolean): (runId: string) => Promise<string | null> {
    if (!needed) return async () => null;
    const seen = new Map<string, string | null>();
    return async (runId) => {
      if (!seen.has(runId)) {
        if (seen.size >= MAX_CACHED_RUNS) seen.clear();
        seen.set(runId, (await this.runs.get(runId))?.userId ?? null);
      }
      return seen.get(runId) ?? null;
    };
  }
}
