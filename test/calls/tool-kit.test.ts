import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineArguments, integer, textParts, uniqueArray } from '../../src/calls/tool-kit.js';
import { SystemFailure } from '../../src/core/tool-errors.js';

const joined = (parts: ReturnType<typeof textParts>) =>
  parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n');

describe('textParts', () => {
  test('keeps short text as one part', () => {
    expect(textParts('a\nb')).toEqual([{ type: 'text', text: 'a\nb' }]);
  });

  test('cuts long text after whole lines so that joining with newlines restores it', () => {
    const text = Array.from({ length: 3000 }, (_, i) => `第${i}行：饕餮的传说 line ${i}`).join('\n');
    const parts = textParts(text);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts)
      expect(Buffer.byteLength((part as { text: string }).text)).toBeLessThanOrEqual(15_000);
    expect(joined(parts)).toBe(text);
  });

  test('cuts a single line longer than a part at character boundaries', () => {
    const parts = textParts('饕'.repeat(6000));
    expect(parts).toHaveLength(2);
    expect(parts.map((p) => (p as { text: string }).text.length)).toEqual([5000, 1000]);
  });
});

describe('defineArguments', () => {
  const notes = defineArguments({
    path: z.string().min(1).describe('The file.'),
    mode: z.enum(['create', 'append']),
    tags: uniqueArray(z.string()).max(3).optional(),
    limit: integer().min(1).default(20),
  });
  const call = (args: Record<string, unknown>) => ({ arguments: args, spec: { name: 'notes.write' } });

  test('stores a closed draft-07 object schema without a $schema declaration', () => {
    expect(notes.inputSchema).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'The file.' },
        mode: { enum: ['create', 'append'] },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3, uniqueItems: true },
        limit: { type: 'integer', minimum: 1, default: 20 },
      },
      required: ['path', 'mode'],
      additionalProperties: false,
    });
  });

  test('keeps an empty required list for a tool without required arguments', () => {
    expect(defineArguments({}).inputSchema).toEqual({
      type: 'object',
      properties: {},
      required: [],
      additionalProperties: false,
    });
  });

  test('parses the arguments into their typed value, defaults filled in', () => {
    expect(notes.parse(call({ path: 'a.md', mode: 'create' }))).toEqual({
      path: 'a.md',
      mode: 'create',
      limit: 20,
    });
  });

  test('takes integers of any size, as the JSON Schema does', () => {
    expect(notes.parse(call({ path: 'a.md', mode: 'create', limit: 1e20 })).limit).toBe(1e20);
  });

  test('fails the run when arguments the schema let through do not parse', () => {
    const parse = () => notes.parse(call({ path: 'a.md', mode: 'create', tags: ['x', 'x'] }));
    expect(parse).toThrow(SystemFailure);
    expect(parse).toThrow(/^The arguments of notes\.write passed its input schema but not its parser: /);
  });
});
