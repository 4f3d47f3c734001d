import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/core/errors.js';
import type { ToolResult } from '../../../src/core/tool-result.js';
import { answerCalls, outcomeText } from '../../../src/model/providers/tool-results.js';
import type { AssistantTurn } from '../../../src/model/providers/types.js';
import { textResult } from './support.js';

const TURN: AssistantTurn = {
  provider: 'OPENAI_CHAT',
  native: [],
  parts: [
    { kind: 'text', text: 'On it.' },
    { kind: 'tool_call', call: { id: 'c1', name: 'a.one', arguments: {}, providerMetadata: null } },
    { kind: 'tool_call', call: { id: 'c2', name: 'a.two', arguments: {}, providerMetadata: null } },
  ],
};

function result(partial: Partial<ToolResult>): ToolResult {
  return { ...textResult('c1', ''), content: [], ...partial };
}

describe('outcomeText', () => {
  it('uses the text of a result and its error flag', () => {
    expect(outcomeText({ callId: 'c1', outcome: 'result', result: textResult('c1', 'boom', true) })).toEqual({
      text: 'boom',
      isError: true,
    });
  });

  it('renders every kind of content part on its own line', () => {
    const content: ToolResult['content'] = [
      { type: 'text', text: 'patched' },
      { type: 'json', value: { files: 2 } },
      { type: 'image_ref', uri: 'blob://1', mimeType: 'image/png' },
      { type: 'audio_ref', uri: 'blob://2', mimeType: 'audio/wav' },
      { type: 'file_ref', path: 'src/a.ts' },
      { type: 'resource_ref', uri: 'res://x', description: 'the diff' },
      { type: 'resource_ref', uri: 'res://y' },
      { type: 'diff_ref', uri: 'diff://3' },
    ];
    expect(outcomeText({ callId: 'c1', outcome: 'result', result: result({ content }) }).text).toBe(
      [
        'patched',
        '{"files":2}',
        '[image image/png: blob://1]',
        '[audio audio/wav: blob://2]',
        '[file: src/a.ts]',
        '[resource: res://x (the diff)]',
        '[resource: res://y]',
        '[diff: diff://3]',
      ].join('\n'),
    );
  });

  it('falls back to the structured result when there is no content', () => {
    expect(
      outcomeText({ callId: 'c1', outcome: 'result', result: result({ structured: { ok: true } }) }).text,
    ).toBe('{"ok":true}');
  });

  it('says so when a result has nothing in it', () => {
    expect(outcomeText({ callId: 'c1', outcome: 'result', result: result({}) }).text).toBe('(no output)');
  });

  it('words each outcome for what it is, with the reason', () => {
    const texts = (['denied', 'cancelled', 'interrupted', 'invalid'] as const).map(
      (outcome) => outcomeText({ callId: 'c1', outcome, message: 'because' }).text,
    );
    expect(texts).toEqual([
      'Denied: this tool call was not approved and did not run. Reason: because',
      'Cancelled: this tool call was cancelled and did not complete. Reason: because',
      'Interrupted: this tool call was interrupted before it finished; its effects may be incomplete. Reason: because',
      'Invalid: this tool call was rejected before it ran. Reason: because',
    ]);
  });

  it('never words an interrupted call as denied', () => {
    expect(outcomeText({ callId: 'c1', outcome: 'interrupted' }).text.toLowerCase()).not.toContain('denied');
  });

  it('never words an expired call as denied: nobody decided, and the model may ask again', () => {
    expect(outcomeText({ callId: 'c1', outcome: 'expired' })).toEqual({
      text: 'Expired: this tool call did not run. No one decided in time; you may ask again.',
      isError: true,
    });
  });

  it("answers a denial with feedback in the person's words", () => {
    expect(
      outcomeText({
        callId: 'c1',
        outcome: 'denied',
        message: 'ignored when there is feedback',
        deniedBy: 'approver:ann',
        feedback: 'Use output/drafts/.',
      }),
    ).toEqual({ text: 'Denied by approver:ann: Use output/drafts/.', isError: true });
  });
});

describe('answerCalls', () => {
  it('answers every call of the turn in call order, including one without an outcome', () => {
    const answers = answerCalls(TURN, [{ callId: 'c2', outcome: 'cancelled' }]);
    expect(answers.map(({ call, answer }) => [call.id, answer])).toEqual([
      ['c1', { text: 'No result: no outcome was recorded for this tool call.', isError: true }],
      ['c2', { text: 'Cancelled: this tool call was cancelled and did not complete.', isError: true }],
    ]);
  });

  it('rejects an outcome for a call the turn does not contain', () => {
    expect(() => answerCalls(TURN, [{ callId: 'c9', outcome: 'denied' }])).toThrow(DomainError);
  });

  it('rejects two outcomes for the same call', () => {
    expect(() =>
      answerCalls(TURN, [
        { callId: 'c1', outcome: 'denied' },
        { callId: 'c1', outcome: 'cancelled' },
      ]),
    ).toThrow('Two outcomes for call c1');
  });
});
