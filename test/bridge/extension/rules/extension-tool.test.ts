import { describe, expect, it } from 'vitest';
import {
  extensionToolName,
  parseExtensionToolName,
} from '../../../../src/bridge/extension/rules/extension-tool.js';
import { renderApprovalMessage } from '../../../../src/core/approval-message.js';

describe('approval message templates', () => {
  it('fills {{argument}} and {{nested.path}} placeholders from the arguments', () => {
    expect(
      renderApprovalMessage('Send {{ text }} to {{to.name}} ({{count}} times)', {
        text: 'hi',
        to: { name: 'Bo' },
        count: 3,
      }),
    ).toBe('Send hi to Bo (3 times)');
  });

  it('renders objects as canonical JSON and missing or null arguments as nothing', () => {
    expect(
      renderApprovalMessage('[{{tags}}] [{{missing}}] [{{none}}]', { tags: { b: 1, a: [2] }, none: null }),
    ).toBe('[{"a":[2],"b":1}] [] []');
  });

  it('does not evaluate anything: no expressions, no prototype lookups, other braces stay text', () => {
    const args = { a: 1 };
    expect(renderApprovalMessage('{{a + 1}} {{constructor}} {{__proto__}} {{a.toString}} {a}', args)).toBe(
      '{{a + 1}}    {a}',
    );
  });

  it('bounds each value and the whole message', () => {
    const long = 'x'.repeat(5000);
    expect(renderApprovalMessage('{{v}}', { v: long })).toBe(`${'x'.repeat(200)}…`);
    const message = renderApprovalMessage('{{v}}'.repeat(10), { v: long });
    expect(message.length).toBe(1001);
    expect(message.endsWith('…')).toBe(true);
  });
});

describe('extension tool names', () => {
  it('round-trips ext.<extensionId>.<name>', () => {
    expect(extensionToolName('dice', 'roll')).toBe('ext.dice.roll');
    expect(parseExtensionToolName('ext.dice.roll')).toEqual({ extensionId: 'dice', localName: 'roll' });
  });

  it('recognises nothing else as an extension tool', () => {
    for (const name of [
      'workspace.read_file',
      'ext.dice',
      'ext.dice.a.b',
      'mcp.dice.roll',
      'ext.Dice.roll',
    ]) {
      expect(parseExtensionToolName(name), name).toBeNull();
    }
  });
});
