import { inArray } from 'drizzle-orm';
import { toolCalls, tools } from '../../calls/tables.js';
import type { JournalEvent, JournalEventType } from '../../core/journal-event.js';
import type { Logger } from '../../core/logger.js';
import type { Db } from '../../db/client.js';
import type { Metrics } from './metrics.js';

const FINAL: Partial<Record<JournalEventType, string>> = {
  tool_call_completed: 'COMPLETED',
  tool_call_failed: 'FAILED',
  tool_call_denied: 'DENIED',
  tool_call_expired: 'EXPIRED',
  tool_call_cancelled: 'CANCELLED',
  // The replacement is counted as a call of its own; the edited one ends here.
  tool_call_edited: 'EDITED',
};

interface Known {
  tool: string;
  requestedAt: number | null;
  awaitingSince: number | null;
}

/** More calls than this in flight at once and the oldest are forgotten (their finals are looked up). */
const MAX_KNOWN = 50_000;

/**
 * Counts calls from the journal the bus already reads and fans out, so the call path pays nothing:
 * a call's tool and request time come from its `tool_call_requested` event, a tool's source from
 * one read of the registry per name; only calls requested before this process started are looked
 * up, once per bus batch, off the call path.
 */
export class CallMetrics {
  private readonly calls = new Map<string, Known>();
  private readonly sources = new Map<string, string>();
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
  ) {}

  /** The bus listener: delivery lag is taken at once, the rest in order behind any lookup. */
  onEvents(events: JournalEvent[]): void {
    const now = Date.now();
    for (const event of events) this.metrics.journalLag.observe(Math.max(0, now - event.at.getTime()) / 1000);
    this.metrics.journalEvents.inc(events.length);
    this.queue = this.queue
      .then(() => this.count(events))
      .catch((error: unknown) => this.logger.warn({ err: error }, 'counting tool calls failed'));
  }

  /** Resolves once every batch handed in so far is counted. */
  settled(): Promise<void> {
    return this.queue;
  }

  private async count(events: JournalEvent[]): Promise<void> {
    await this.lookUp(events);
    for (const event of events) {
      const callId = event.callId;
      if (!callId) continue;
      const at = event.at.getTime();
      switch (event.type) {
        case 'tool_call_requested':
          this.remember(callId, { tool: String(event.payload.name), requestedAt: at, awaitingSince: null });
          break;
        case 'tool_call_awaiting_approval': {
          const known = this.calls.get(callId);
          if (known) known.awaitingSince = at;
          break;
        }
        case 'tool_call_approved':
          this.decided(callId, 'approved', at);
          break;
        case 'tool_call_requeued':
          this.metrics.leaseRecoveries.inc({ outcome: 'requeued' });
          break;
        default:
          this.final(event, callId, at);
      }
    }
  }

  private final(event: JournalEvent, callId: string, at: number): void {
    const status = FINAL[event.type];
    if (!status) return;
    if (event.type === 'tool_call_failed' && 'previousWorker' in event.payload)
      this.metrics.leaseRecoveries.inc({ outcome: 'interrupted' });
    if (event.type === 'tool_call_denied') this.decided(callId, 'denied', at);
    if (event.type === 'tool_call_expired') this.decided(callId, 'expired', at);
    const known = this.calls.get(callId);
    this.calls.delete(callId);
    const tool = known?.tool ?? 'unknown';
    const labels = { tool, source: this.sources.get(tool) ?? 'UNKNOWN', status };
    this.metrics.toolCalls.inc(labels);
    if (known?.requestedAt != null)
      this.metrics.callDuration.observe(labels, (at - known.requestedAt) / 1000);
  }

  private decided(callId: string, outcome: string, at: number): void {
    const known = this.calls.get(callId);
    if (!known || known.awaitingSince === null) return;
    this.metrics.approvalWait.observe({ tool: known.tool, outcome }, (at - known.awaitingSince) / 1000);
    known.awaitingSince = null;
  }

  private remember(callId: string, known: Known): void {
    if (this.calls.size >= MAX_KNOWN) this.calls.delete(this.calls.keys().next().value!);
    this.calls.set(callId, known);
  }

  /** Names of calls requested before this process listened, and sources of tools not seen yet. */
  private async lookUp(events: JournalEvent[]): Promise<void> {
    // A call that commits at once (its tool runs in the request's transaction) ends in the batch it starts in.
    const requestedHere = new Set(
      events.filter((e) => e.type === 'tool_call_requested').map((e) => e.callId),
    );
    const unknownCalls = events
      .filter((e) => e.callId && FINAL[e.type] && !this.calls.has(e.callId) && !requestedHere.has(e.callId))
      .map((e) => e.callId!);
    if (unknownCalls.length > 0) {
      const rows = await this.db
        .select({ id: toolCalls.id, name: toolCalls.name, requestedAt: toolCalls.requestedAt })
        .from(toolCalls)
        .where(inArray(toolCalls.id, [...new Set(unknownCalls)]));
      for (const row of rows)
        this.remember(row.id, {
          tool: row.name,
          requestedAt: row.requestedAt.getTime(),
          awaitingSince: null,
        });
    }
    const names = new Set<string>();
    for (const event of events) {
      const name = event.type === 'tool_call_requested' ? String(event.payload.name) : undefined;
      if (name && !this.sources.has(name)) names.add(name);
    }
    for (const id of unknownCalls) {
      const name = this.calls.get(id)?.tool;
      if (name && !this.sources.has(name)) names.add(name);
    }
    if (names.size === 0) return;
    const rows = await this.db
      .select({ name: tools.name, source: tools.source })
      .from(tools)
      .where(inArray(tools.name, [...names]));
    for (const row of rows) this.sources.set(row.name, row.source);
    // A name no tool has (a call the model made up) is not asked about again.
    for (const name of names) if (!this.sources.has(name)) this.sources.set(name, 'UNKNOWN');
  }
}
