import { describe, expect, test } from 'vitest';
import { argumentsText, parseArguments } from '../../console/src/logic/edit.js';
import { argumentWarnings, jsonWithHiddenEscaped } from '../../console/src/logic/reveal.js';

describe('argumentWarnings (what the approver is warned of before deciding)', () => {
  test('names the place of each hidden character and look-alike word, keys and the message too', () => {
    const args = { path: 'report\u202Etxt.exe', note: { 'ke\u200By': 'please d\u0435lete it' } };
    expect(argumentWarnings(args, 'Write p\u0430ypal.md')).toEqual([
      '/path: holds U+202E RIGHT-TO-LEFT OVERRIDE, which reorders the text after it',
      '/note/ke\u200By (its name): holds U+200B ZERO WIDTH SPACE, which is invisible',
      '/note/ke\u200By: "d\u0435lete" mixes Latin and Cyrillic letters that look alike',
      'the approval message: "p\u0430ypal" mixes Latin and Cyrillic letters that look alike',
    ]);
  });

  test('plain arguments give none', () => {
    expect(argumentWarnings({ path: 'output/report.md', lines: ['a', 'b\nc'] }, 'Write it')).toEqual([]);
  });
});

describe('jsonWithHiddenEscaped (the edit form shows what is hidden)', () => {
  test('writes hidden characters as \\u escapes that parse back to the same arguments', () => {
    const args = { path: 'a\u202Eb', tag: 'x\u{E0041}y', text: 'two\nlines' };
    const text = jsonWithHiddenEscaped(argumentsText(args));
    expect(text).toBe('{\n  "path": "a\\u202Eb",\n  "tag": "x\\uDB40\\uDC41y",\n  "text": "two\\nlines"\n}');
    expect(parseArguments(text)).toEqual({ ok: true, value: args });
  });
});
