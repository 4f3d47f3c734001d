export const journalEventTypes = [
  'run_started',
  'run_completed',
  'run_failed',
  'run_cancelled',
  'tool_call_requested',
  'tool_call_awaiting_approval',
  'tool_call_approval_added',
  'tool_call_approved',
  'tool_call_edited',
  'tool_call_denied',
  'tool_call_expiring',
  'tool_call_expired',
  'tool_call_started',
  'tool_call_completed',
  'tool_call_failed',
  'tool_call_cancelled',
  'tool_call_requeued',
  'policy_violation',
  'checkpoint_created',
  'workspace_changed',
  'context_component_dropped',
  'bridge_answer_rejected',
  'mcp_server_changed',
  'mcp_tools_changed',
  'model_connection_changed',
  'notification_target_changed',
  'notification_delivered',
  'notification_failed',
  'agent_run_started',
  'agent_round_finished',
  'model_request_failed',
  'agent_run_stopped',
] as const;
export type JournalEventType = (typeof journalEventTypes)[number];

export interface NewJournalEvent {
  type: JournalEventType;
  runId?: string | null;
  callId?: string | null;
  actor: string;
  payload: Record<string, unknown>;
}

export interface JournalEvent extends NewJournalEvent {
  seq: bigint;
  at: Date;
}

/** The journal records what happened, not the data itself: big things go to resources. */
export const MAX_PAYLOAD_BYTES = 8 * 1024;
