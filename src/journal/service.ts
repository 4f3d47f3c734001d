import { eq } from 'drizzle-orm';
import { Repeater } from 'graphql-yoga';
import type { RunService } from '../calls/run-service.js';
import { toolCalls } from '../calls/tables.js';
import type { ToolCallRow, ToolCallService } from '../calls/tool-call-service.js';
import type { Principal } from '../core/auth.js';
import { badInput, forbidden } from '../core/errors.js';
import type { JournalEvent, JournalEventType } from '../core/journal-event.js';
import type { Db } from '../db/client.js';
import type { JournalBus } from './bus.js';
import { type JournalFilter, readEvents } from './read.js';

export function parseSeq(value: string | null | undefined): bigint | null {
  if (value == null) return null;
  if (!/^\d{1,19}$/.test(value))
    throw badInput(`afterSeq must be a journal position (digits), not ${JSON.stringify(value)}`);
  return BigInt(value);
}

const queueEvents = new Set<JournalEventType>([
  'tool_call_awaiting_approval',
  'tool_call_approved',
  'tool_call_denied',
  'tool_call_cancelled',
]);

export class JournalService {
  constructor(
    private readonly db: Db,
    private readonly bus: JournalBus,
    private readonly runs: RunService,
    private readonly calls: ToolCallService,
  ) {}

  read(filter: JournalFilter & { afterSeq?: bigint | null; limit: number }): Promise<JournalEvent[]> {
    return readEvents(this.db, filter);
  }

  /**
   * People read the whole journal. An agent reads only the runs its token created, so it must
   * name one (or a call of one); extensions do not read the journal.
   */
  async authorize(principal: Principal, filter: JournalFilter): Promise<void> {
    if (principal.role === 'EXTENSION') throw forbidden('extensions do not read the journal');
    if (principal.role !== 'AGENT') return;
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

  stream(filter: JournalFilter, afterSeq: bigint | null) {
    return this.bus.stream(filter, afterSeq);
  }

  /**
   * The calls awaiting approval now, then each call as it enters or leaves the queue, read fresh
   * from its row so a dashboard always shows the current state.
   */
  approvalQueue(): Repeater<ToolCallRow> {
    return new Repeater<ToolCallRow>(async (push, stop) => {
      // Fix the position before taking the snapshot: whatever happens after it is replayed.
      const from = await this.bus.currentSeq();
      const snapshot = await this.db
        .select()
        .from(toolCalls)
        .where(eq(toolCalls.status, 'AWAITING_APPROVAL'))
        .orderBy(toolCalls.requestedAt);
      const listed = new Set(snapshot.map((c) => c.id));
      const changes = this.bus.stream({}, from, (e) => queueEvents.has(e.type) && e.callId != null);
      void stop.then(() => changes.return());
      for (const call of snapshot) await push(call);
      for await (const event of changes) {
        const entering = event.type === 'tool_call_awaiting_approval';
        if (entering && listed.has(event.callId!)) continue;
        if (event.type === 'tool_call_cancelled' && event.payload.previousStatus !== 'AWAITING_APPROVAL')
          continue;
        const call = await this.calls.get(event.callId!);
        if (call) await push(call);
      }
      await stop;
    });
  }
}
