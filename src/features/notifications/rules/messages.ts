import type { JournalEvent } from '../../../core/journal-event.js';
import { revealText, revealWarnings } from '../../../core/reveal.js';
import { outcomeOf } from './events.js';
import type { NotificationEventKind, NotificationKind } from './kinds.js';

/** What a notification says about its call: no arguments, which stay on the server (the link shows them). */
export interface CallSummary {
  id: string;
  runId: string;
  userId: string | null;
  tool: string;
  title: string | null;
  approvalMessage: string | null;
  status: string;
  argumentsHash: string;
  approvalExpiresAt: Date | null;
}

export interface NotificationContent {
  deliveryId: string;
  event: NotificationEventKind;
  source: JournalEvent;
  call: CallSummary;
  link: { url: string; expiresAt: Date } | null;
}

function decisionOf(source: JournalEvent) {
  const outcome = outcomeOf(source);
  if (!outcome) return null;
  const reason = typeof source.payload.reason === 'string' ? source.payload.reason : null;
  return { outcome, by: source.actor, reason };
}

/**
 * What a person should be warned of in the text a notification shows (invisible or bidi
 * characters, words mixing look-alike scripts), each line naming the field it is in.
 */
function warningsOf(call: CallSummary, reason: string | null): string[] {
  const fields: Array<[string, string | null]> = [
    ['tool', call.tool],
    ['userId', call.userId],
    ['approvalMessage', call.approvalMessage],
    ['reason', reason],
  ];
  return fields.flatMap(([field, text]) => (text ? revealWarnings(text).map((w) => `${field} ${w}`) : []));
}

/** The generic webhook's JSON body (docs/notifications.md). */
export function webhookBody(content: NotificationContent): Record<string, unknown> {
  const { call, source, link } = content;
  return {
    deliveryId: content.deliveryId,
    event: content.event,
    journalEvent: source.type,
    seq: source.seq.toString(),
    occurredAt: source.at.toISOString(),
    call: {
      id: call.id,
      runId: call.runId,
      userId: call.userId,
      tool: call.tool,
      title: call.title,
      approvalMessage: call.approvalMessage,
      status: call.status,
      argumentsHash: call.argumentsHash,
      approvalExpiresAt: call.approvalExpiresAt?.toISOString() ?? null,
    },
    decision: decisionOf(source),
    warnings: warningsOf(call, decisionOf(source)?.reason ?? null),
    link: link ? { url: link.url, expiresAt: link.expiresAt.toISOString() } : null,
  };
}

/**
 * Slack's mrkdwn treats these three as control characters; anything a model or person wrote is
 * escaped, and its invisible and bidi characters are written out (`⟦U+202E⟧`).
 */
function escapeChat(text: string): string {
  return revealText(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const HEADLINES: Record<NotificationEventKind, string> = {
  APPROVAL_REQUESTED: 'Approval needed',
  APPROVAL_EXPIRING: 'Approval expiring soon',
  CALL_DECIDED: 'Call decided',
};

/** A Slack-compatible incoming webhook body: `{ text }` in mrkdwn, the console link last. */
export function chatBody(content: NotificationContent): { text: string } {
  const { call, source, link } = content;
  const who = call.userId ? ` for ${escapeChat(call.userId)}` : '';
  const lines = [`*${HEADLINES[content.event]}*: \`${escapeChat(call.tool)}\`${who} (run ${call.runId})`];
  if (call.approvalMessage) lines.push(escapeChat(call.approvalMessage));
  const decision = decisionOf(source);
  for (const warning of warningsOf(call, decision?.reason ?? null)) lines.push(`⚠ ${escapeChat(warning)}`);
  if (decision) {
    const why = decision.reason ? `: ${escapeChat(decision.reason)}` : '';
    lines.push(
      decision.outcome === 'EXPIRED'
        ? 'No one decided in time.'
        : `${decision.outcome} by ${escapeChat(decision.by)}${why}`,
    );
  } else if (call.approvalExpiresAt) {
    lines.push(`Expires ${call.approvalExpiresAt.toISOString()}`);
  }
  if (link) lines.push(`<${link.url}|Open in the console> (one-time link)`);
  return { text: lines.join('\n') };
}

export function bodyFor(kind: NotificationKind, content: NotificationContent): Record<string, unknown> {
  return kind === 'CHAT_WEBHOOK' ? chatBody(content) : webhookBody(content);
}
