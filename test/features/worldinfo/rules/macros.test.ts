import { describe, expect, it } from 'vitest';
import { type MacroEnv, substituteMacros } from '../../../../src/features/worldinfo/rules/macros.js';

const env: MacroEnv = {
  user: 'Ann',
  char: 'Seraphina',
  description: 'A guardian.',
  personality: 'kind',
  scenario: 'A glade.',
  persona: '',
  mesExamples: '<START>\n{{char}}: Hello.',
  charVersion: '1.2',
  charPrompt: 'Stay in character.',
  charInstruction: 'Be brief.',
  lastMessage: 'Where am I?',
  lastUserMessage: 'Where am I?',
  lastCharMessage: 'Rest now.',
  now: new Date(Date.UTC(2026, 11, 4, 20, 5)),
};

describe("SillyTavern's macros", () => {
  it.each([
    ['{{char}} greets {{user}}.', 'Seraphina greets Ann.'],
    ['{{CHAR}} and {{User}}', 'Seraphina and Ann'],
    [
      '<USER> meets <BOT> (<CHAR>, <GROUP>, <CHARIFNOTGROUP>)',
      'Ann meets Seraphina (Seraphina, Seraphina, Seraphina)',
    ],
    [
      '{{description}} {{personality}} {{scenario}} {{charVersion}} {{char_version}}',
      'A guardian. kind A glade. 1.2 1.2',
    ],
    [
      '{{charPrompt}} / {{charJailbreak}} / {{charInstruction}}',
      'Stay in character. / Be brief. / Be brief.',
    ],
    ['a{{newline}}b{{noop}}c', 'a\nbc'],
    ['line\n\n{{trim}}\nnext', 'linenext'],
    ['keep{{// a note for the author }} this', 'keep this'],
    ['{{lastMessage}} | {{lastUserMessage}} | {{lastCharMessage}}', 'Where am I? | Where am I? | Rest now.'],
    [
      '{{time}} {{date}} {{weekday}} {{isotime}} {{isodate}}',
      '8:05 PM December 4, 2026 Friday 20:05 2026-12-04',
    ],
    ['{{random:a,b}} {{roll:d6}} {{getvar::x}}', '{{random:a,b}} {{roll:d6}} {{getvar::x}}'],
    ['{{persona}}', ''],
  ])('%j becomes %j', (text, expected) => {
    expect(substituteMacros(text, env)).toBe(expected);
  });

  it('keeps a $ in a value literal', () => {
    expect(substituteMacros('{{user}}', { ...env, user: '$& $1' })).toBe('$& $1');
  });
});
