import type { JournalEvent, JournalEventType } from '../../../core/journal-event.js';
import type { NotificationEventKind } from './kinds.js';

export const decisionOutcomes = ['APPROVED', 'DENIED', 'EXPIRED', 'EDITED'] as const;
export type DecisionOutcome = (typeof decisionOutcomes)[number];

/** The journal events that notify, by what a target subscribes to. */
const KIND_OF: Partial<Record<JournalEventType, NotificationEventKind>> = {
  tool_call_awaiting_approval: 'APPROVAL_REQUESTED',
  tool_call_expiring: 'APPROVAL_EXPIRING',
  tool_call_approved: 'CALL_DECIDED',
  tool_call_denied: 'CALL_DECIDED',
  tool_call_expired: 'CALL_DECIDED',
  tool_call_edited: 'CALL_DECIDED',
};

const OUTCOME_OF: Partial<Record<JournalEventType, DecisionOutcome>> = {
  tool_call_approved: 'APPROVED',
  tool_call_denied: 'DENIED',
  tool_call_expired: 'EXPIRED',
  tool_call_edited: 'EDITED',
};

export const notifyingEventTypes = Object.keys(KIND_OF) as JournalEventType[];

export function kindOf(event: JournalEvent): NotificationEventKind | null {
  return event.callId ? (KIND_OF[event.type] ?? null) : null;
}

export function outcomeOf(event: JournalEvent): DecisionOutcome | null {
  return OUTCOME_OF[event.type] ?? null;
}
