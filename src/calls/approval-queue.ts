import { and, count, eq, inArray, like, type SQL, sql } from 'drizzle-orm';
import { Repeater } from 'graphql-yoga';
import { likePattern } from '../core/access.js';
import type { Principal } from '../core/auth.js';
import type { JournalEventType } from '../core/journal-event.js';
import type { Db } from '../db/client.js';
import type { JournalBus } from '../journal/bus.js';
import type { JournalAccess } from './journal-access.js';
import type { ToolCallService } from './lifecycle/tool-call-service.js';
import {
  type ApprovalQueueEventKind,
  type ApprovalQueueFilter,
  matchesQueueFilter,
  needsRunUser,
} from './rules/queue-filter.js';
import { type RunService, runScope } from './run-service.js';
import { runs, type ToolCallRow, toolCalls } from './tables.js';

/**
 * The SQL of "calls awaiting approval that this principal sees and this filter keeps": the
 * snapshot of a queue subscription and `pendingApprovals` (its pages and its count) read the
 * same rows the live filter in `matchesQueueFilter` keeps.
 */
function pendingApprovalsWhere(
  db: Db,
  principal: Principal,
  filter: ApprovalQueueFilter | null | undefined,
): SQL {
  const conditions: SQL[] = [eq(toolCalls.status, 'AWAITING_APPROVAL')];
  const runConditions: SQL[] = [];
  const scope = runScope(principal);
  if (scope) runConditions.push(scope);
  if (filter?.userId) runConditions.push(eq(runs.userId, filter.userId));
  if (runConditions.length > 0)
    conditions.push(
      inArray(
        toolCalls.runId,
        db
          .select({ id: runs.id })
          .from(runs)
          .where(and(...runConditions)),
      ),
    );
  if (filter?.runId) conditions.push(eq(toolCalls.runId, filter.runId));
  if (filter?.toolPattern) conditions.push(like(toolCalls.name, likePattern(filter.toolPattern)));
  if (filter?.source) conditions.push(sql`${toolCalls.tool}->>'source' = ${filter.source}`);
  return and(...conditions)!;
}

async function countWhere(db: Db, where: SQL): Promise<number> {
  const [row] = await db.select({ n: count() }).from(toolCalls).where(where);
  return row?.n ?? 0;
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

/** Enough run ids to cover a busy dashboard's day; past it the cache starts over rather than grow. */
const MAX_CACHED_RUNS = 10_000;

/** The calls waiting for a person: pages of them, and the live queue a console follows. */
export class ApprovalQueueService {
  constructor(
    private readonly db: Db,
    private readonly bus: JournalBus,
    private readonly runs: RunService,
    private readonly calls: ToolCallService,
    private readonly access: JournalAccess,
  ) {}

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
    return countWhere(this.db, pendingApprovalsWhere(this.db, principal, filter));
  }

  /**
   * The calls awaiting approval now (ENTERED each, oldest first, then SNAPSHOT_END), then each
   * call as it enters or leaves the queue, read fresh from its row so a dashboard shows the
   * current state. Only calls of runs the principal sees and the filter keeps: the snapshot is
   * filtered in SQL, the changes by the same rules in memory. A call leaves only if it was
   * listed, so `pending` is exactly the calls a client holds. A listed call that changes while it
   * waits (an approval toward its quorum) is ENTERED again, as it is now: clients replace it.
   */
  events(principal: Principal, filter: ApprovalQueueFilter | null | undefined): Repeater<ApprovalQueueEvent> {
    return new Repeater<ApprovalQueueEvent>(async (push, stop) => {
      const mayRead = this.access.visibility(principal);
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
  rows(principal: Principal, filter?: ApprovalQueueFilter | null): Repeater<ToolCallRow> {
    const events = this.events(principal, filter);
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
