import { describe, expect, test } from 'vitest';
import { explainReason } from '../../console/src/logic/reason.js';

describe('explainReason (why a call waits, said plainly)', () => {
  test("an asking rule's own reason comes first; its id and pattern are kept for the details", () => {
    const raw = 'approval required by PROFILE rule 3f2a (ASK "workspace.*"): drafts need a second look';
    expect(explainReason(raw)).toEqual({
      human: 'Drafts need a second look.',
      rules: [
        {
          layer: 'PROFILE',
          id: '3f2a',
          effect: 'ASK',
          toolPattern: 'workspace.*',
          when: null,
          reason: 'drafts need a second look',
        },
      ],
      raw,
    });
  });

  test('an asking rule without a reason is described by its layer and pattern, not its id', () => {
    const raw =
      'allowed by PROFILE rule r1 (ALLOW "test.*"); approval required by USER rule r2 (ASK "test.echo" when /text (text) glob "x*")';
    const explained = explainReason(raw);
    expect(explained.human).toBe(
      "A rule of this user's policy asks a person to decide calls of test.echo when its arguments match.",
    );
    expect(explained.human).not.toContain('r2');
    expect(explained.rules.map((r) => r.id)).toEqual(['r1', 'r2']);
    expect(explained.rules[1]!.when).toBe('/text (text) glob "x*"');
  });

  test.each([
    [
      'approval required: destructive tools need approval by default',
      'This tool can delete or overwrite data',
    ],
    [
      'approval required: tools with external side effects need approval by default',
      'acts outside the server',
    ],
    ['approval required: high-cost tools need approval by default', 'high-cost'],
    ['approval required: MCP tools need approval by default', 'MCP server'],
    ['approval required by the tool permission APPROVAL_REQUIRED', 'always asks a person'],
  ])('the default gate "%s" is said plainly', (raw, words) => {
    const explained = explainReason(`allowed by PLATFORM rule p1 (ALLOW "*"); ${raw}`);
    expect(explained.human).toContain(words);
    expect(explained.human).not.toMatch(/rule p1|PLATFORM/);
  });

  test('no reason at all still says something', () => {
    expect(explainReason(null).human).toBe('Policy asks a person to decide this call.');
  });
});
