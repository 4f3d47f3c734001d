import type { Api } from './api.js';

export interface JournalEvent {
  seq: string;
  type: string;
  callId: string | null;
  actor: string;
  payload: Record<string, unknown>;
}

const EVENTS = `subscription($runId: ID!) {
  journalEvents(runId: $runId, afterSeq: "0") { seq type callId actor payload } }`;

/** Where a call's journal event leaves it; terminal statuses end the wait for the call. */
const STATUS_OF: Record<string, string> = {
  TOOL_CALL_REQUESTED: 'REQUESTED',
  TOOL_CALL_AWAITING_APPROVAL: 'AWAITING_APPROVAL',
  TOOL_CALL_APPROVED: 'APPROVED',
  TOOL_CALL_REQUEUED: 'APPROVED',
  TOOL_CALL_STARTED: 'STARTED',
  TOOL_CALL_DENIED: 'DENIED',
  TOOL_CALL_COMPLETED: 'COMPLETED',
  TOOL_CALL_FAILED: 'FAILED',
  TOOL_CALL_CANCELLED: 'CANCELLED',
  TOOL_CALL_EXPIRED: 'EXPIRED',
};
const TERMINAL = new Set(['DENIED', 'COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED']);

/**
 * Follows one run's journal live (from its first event, so nothing committed before the
 * subscription opened is missed) and answers "has this call finished?" from it.
 */
export class RunFollower {
  readonly events: JournalEvent[] = [];
  private readonly statuses = new Map<string, string>();
  private readonly names = new Map<string, string>();
  private readonly waiters: Array<() => void> = [];
  private failure: unknown = null;
  private readonly stop: () => void;

  constructor(
    agent: Api,
    runId: string,
    private readonly onEvent: (event: JournalEvent) => void,
  ) {
    this.stop = agent.subscribe<{ journalEvents: JournalEvent }>(
      EVENTS,
      { runId },
      ({ journalEvents: event }) => {
        this.events.push(event);
        const status = STATUS_OF[event.type];
        if (event.callId && status) this.statuses.set(event.callId, status);
        if (event.callId && event.type === 'TOOL_CALL_REQUESTED') {
          this.names.set(event.callId, String(event.payload.name));
        }
        this.onEvent(event);
        this.wake();
      },
      (error) => {
        this.failure = error;
        this.wake();
      },
    );
  }

  private wake() {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** The tool a call of this run was made to, once its request is in the journal. */
  toolOf(callId: string): string {
    return this.names.get(callId) ?? 'a tool';
  }

  /** Resolves with each call's final status once every one of them has one. */
  async finished(callIds: string[]): Promise<string[]> {
    for (;;) {
      if (this.failure) throw this.failure;
      const statuses = callIds.map((id) => this.statuses.get(id));
      if (statuses.every((s) => s !== undefined && TERMINAL.has(s))) return statuses as string[];
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  close() {
    this.stop();
  }
}
