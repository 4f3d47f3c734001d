import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../../../src/core/journal-event.js';
import {
  type CallSummary,
  chatBody,
  type NotificationContent,
  webhookBody,
} from '../../../../src/features/notifications/rules/messages.js';

const call: CallSummary = {
  id: 'c1',
  runId: 'r1',
  userId: 'alice',
  tool: 'workspace.write_file',
  title: 'Write a file',
  approvalMessage: 'Write output/report\u202Edm.exe and d\u0435lete drafts',
  status: 'AWAITING_APPROVAL',
  argumentsHash: 'h',
  approvalExpiresAt: new Date('2026-12-02T14:10:00.000Z'),
};

const content = (summary: CallSummary): NotificationContent => ({
  deliveryId: 'd1',
  event: 'APPROVAL_REQUESTED',
  source: {
    seq: 7n,
    type: 'tool_call_awaiting_approval',
    at: new Date('2026-12-02T14:00:00.000Z'),
    actor: 'system',
    runId: 'r1',
    callId: 'c1',
    payload: {},
  } as unknown as JournalEvent,
  call: summary,
  link: null,
});

describe('what a notification shows a person', () => {
  it('the chat message writes out a bidi override and warns of it and of a mixed-script word', () => {
    expect(chatBody(content(call)).text.split('\n')).toEqual([
      '*Approval needed*: `workspace.write_file` for alice (run r1)',
      'Write output/report⟦U+202E⟧dm.exe and d\u0435lete drafts',
      '⚠ approvalMessage "d\u0435lete" mixes Latin and Cyrillic letters that look alike',
      '⚠ approvalMessage holds U+202E RIGHT-TO-LEFT OVERRIDE, which reorders the text after it',
      'Expires 2026-12-02T14:10:00.000Z',
    ]);
  });

  it('the webhook body sends the text as written and lists the same warnings', () => {
    const body = webhookBody(content(call));
    expect((body.call as CallSummary).approvalMessage).toBe(call.approvalMessage);
    expect(body.warnings).toEqual([
      'approvalMessage "d\u0435lete" mixes Latin and Cyrillic letters that look alike',
      'approvalMessage holds U+202E RIGHT-TO-LEFT OVERRIDE, which reorders the text after it',
    ]);
  });

  it('plain text gets no warnings', () => {
    const plain = { ...call, approvalMessage: 'Write output/report.md' };
    expect(webhookBody(content(plain)).warnings).toEqual([]);
    expect(chatBody(content(plain)).text).not.toContain('⚠');
  });
});
