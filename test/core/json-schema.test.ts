import { describe, expect, test } from 'vitest';
import { checkToolSchema, MAX_TOOL_SCHEMA_BYTES, validateAgainst } from '../../src/core/json-schema.js';

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

describe('tool JSON Schemas', () => {
  test('each pattern of a schema is enforced on its own property', () => {
    const schema = object({ a: { type: 'string', pattern: '^a+$' }, b: { type: 'string', pattern: '^b+$' } });
    expect(validateAgainst(schema, { a: 'aa', b: 'bb' })).toEqual([]);
    expect(validateAgainst(schema, { a: 'aa', b: 'aa' })).toEqual([
      { path: '/b', message: 'must match pattern "^b+$"' },
    ]);
  });

  test('patterns are unanchored searches over code points, as in JSON Schema', () => {
    const schema = object({ s: { type: 'string', pattern: '龙' }, t: { type: 'string', pattern: '^.{2}$' } });
    expect(validateAgainst(schema, { s: '东方的龙在睡', t: '😀😀' })).toEqual([]);
  });

  test('patternProperties select properties by pattern', () => {
    const schema = object({}, { patternProperties: { '^x-': { type: 'number' } } });
    expect(validateAgainst(schema, { 'x-a': 1, other: 'free' })).toEqual([]);
    expect(validateAgainst(schema, { 'x-a': 'one' })).toEqual([{ path: '/x-a', message: 'must be number' }]);
  });

  test('a pattern that backtracks exponentially on a hostile argument still answers', () => {
    const schema = object({ s: { type: 'string', pattern: '^(a+)+$' } });
    expect(validateAgainst(schema, { s: `${'a'.repeat(200_000)}!` })).toEqual([
      { path: '/s', message: 'must match pattern "^(a+)+$"' },
    ]);
  });

  test('a pattern with lookaround or a backreference is refused, naming it', () => {
    for (const pattern of ['^(?=.*\\d).+$', '^(a)\\1$']) {
      const check = checkToolSchema(object({ s: { type: 'string', pattern } }), true);
      expect(check.ok).toBe(false);
      expect(!check.ok && check.message).toContain(`pattern ${JSON.stringify(pattern)} is not supported`);
    }
  });

  test('a schema over the size limit is refused with its size', () => {
    const properties = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [`field_${i}`, { type: 'string', description: 'x'.repeat(20) }]),
    );
    const check = checkToolSchema(object(properties), true);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.message).toMatch(
      new RegExp(`^is \\d+ bytes of JSON; at most ${MAX_TOOL_SCHEMA_BYTES} are accepted$`),
    );
  });

  test('a stored schema that no longer compiles fails validation with a reason instead of throwing', () => {
    const schema = object({ s: { type: 'string', pattern: '(?<=a)b' } });
    expect(validateAgainst(schema, { s: 'ab' })).toEqual([
      { path: '(schema)', message: expect.stringContaining('the schema cannot be used: pattern') },
    ]);
  });

  test('\\s, \\S and . keep their JavaScript meaning (wider spaces; a dot stops at \\r)', () => {
    const schema = object({
      word: { type: 'string', pattern: '^\\S+$' },
      space: { type: 'string', pattern: '^\\s+$' },
      line: { type: 'string', pattern: '^.+$' },
      any: { type: 'string', pattern: '^[\\s\\S]+$' },
      notSpace: { type: 'string', pattern: '^[^\\s]+$' },
    });
    expect(
      validateAgainst(schema, {
        word: 'a😀b',
        space: '\u3000\u00a0 ',
        line: '😀 x',
        any: 'a\nb',
        notSpace: 'ab',
      }),
    ).toEqual([]);
    expect(
      validateAgainst(schema, { word: 'a\u00a0b', line: 'a\rb', notSpace: 'a\u2028b' }).map((i) => i.path),
    ).toEqual(['/word', '/line', '/notSpace']);
  });

  test('a pattern too large for RE2 to run cheaply is refused with its size', () => {
    const check = checkToolSchema(
      object({ s: { type: 'string', pattern: '[a-z]{1000}[0-9]{1000}x' } }),
      true,
    );
    expect(check.ok).toBe(false);
    expect(!check.ok && check.message).toMatch(/is too complex \(\d+ RE2 instructions; at most 2000\)/);
  });

  test('matching costlier than a validation may spend is a validation issue, not a stall', () => {
    const schema = object({ s: { type: 'string', pattern: '[a-z]{300}[0-9]' } });
    expect(validateAgainst(schema, { s: 'a'.repeat(256 * 1024) })).toEqual([
      { path: '(root)', message: "is too long to check against the schema's patterns; send shorter strings" },
    ]);
    expect(validateAgainst(schema, { s: `${'a'.repeat(300)}1` })).toEqual([]);
  });
});
