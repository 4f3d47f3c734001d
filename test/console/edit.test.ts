import { describe, expect, test } from 'vitest';
import { argumentsText, parseArguments } from '../../console/src/logic/edit.js';

describe('parseArguments (the edit form’s JSON)', () => {
  test('an object parses', () => {
    expect(parseArguments('{ "path": "a.md" }')).toEqual({ ok: true, value: { path: 'a.md' } });
  });

  test('text that is not JSON is refused, saying so', () => {
    const parsed = parseArguments('{ path: a }');
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toMatch(/^not JSON: /);
  });

  test.each(['[1]', '"text"', '3', 'null'])('JSON that is not an object (%s) is refused', (text) => {
    expect(parseArguments(text)).toEqual({ ok: false, error: 'the arguments must be a JSON object ({ … })' });
  });

  test('the form starts from the arguments indented, and from {} when there are none', () => {
    expect(argumentsText({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(argumentsText(null)).toBe('{}');
  });
});
