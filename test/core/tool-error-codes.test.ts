import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { graphqlErrorCodes } from '../../src/core/graphql-error-codes.js';
import { builtInErrorCodes, toolErrorCodes, toolErrorSources } from '../../src/core/tool-error-codes.js';
import { RecoverableToolError, SystemFailure } from '../../src/core/tool-errors.js';
import { toolErrorKinds } from '../../src/core/tool-result.js';

describe('built-in error codes', () => {
  test('are lower_snake_case, each listed once', () => {
    for (const code of builtInErrorCodes) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
    expect(new Set(builtInErrorCodes).size).toBe(builtInErrorCodes.length);
  });

  test('are the keys of the one table, each with a source, its kinds and a one-line meaning', () => {
    expect(builtInErrorCodes).toEqual(Object.keys(toolErrorCodes));
    for (const [code, entry] of Object.entries(toolErrorCodes)) {
      expect(Object.keys(toolErrorSources), code).toContain(entry.source);
      expect(entry.kinds.length, code).toBeGreaterThan(0);
      for (const kind of entry.kinds) expect(toolErrorKinds, code).toContain(kind);
      expect(new Set(entry.kinds).size, code).toBe(entry.kinds.length);
      expect(entry.meaning, code).toMatch(/^\S.*\S$/);
      expect(entry.meaning, code).not.toContain('\n');
    }
  });

  test('name the error a tool throws', () => {
    expect(new RecoverableToolError('stale_write', 'Read it again.').code).toBe('stale_write');
    expect(new SystemFailure('path_escape', 'Outside the workspace.').code).toBe('path_escape');
  });

  test('are thrown only in a class the table lists them under (checked by the compiler)', () => {
    // @ts-expect-error stale_write is RECOVERABLE only: the run must not fail over it.
    expect(new SystemFailure('stale_write', 'Read it again.').kind).toBe('SYSTEM_FAILURE');
    // @ts-expect-error path_escape is a SYSTEM_FAILURE only: the model must not be asked to retry it.
    expect(new RecoverableToolError('path_escape', 'Outside the workspace.').kind).toBe('RECOVERABLE');
  });

  test("let a tool from outside the server's families name its own code", () => {
    expect(new RecoverableToolError({ own: 'no_hits' }, 'Nothing matched.').code).toBe('no_hits');
  });
});

/** Every `kind: '…', code: '…'` an error literal in src/ spells out, and every other lower-case `code: '…'`. */
function literalsInSource() {
  const src = new URL('../../src/', import.meta.url).pathname;
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  const pairs: { file: string; kind: string; code: string }[] = [];
  const codes: { file: string; code: string }[] = [];
  for (const file of files) {
    const text = readFileSync(join(src, file), 'utf8');
    for (const m of text.matchAll(/kind: '([A-Z_]+)',\s*code: '([a-z_]+)'/g))
      pairs.push({ file, kind: m[1]!, code: m[2]! });
    for (const m of text.matchAll(/\bcode: '([a-z][a-z_]*)'/g)) codes.push({ file, code: m[1]! });
  }
  return { pairs, codes };
}

describe('error codes spelled out in src/ (a backstop for literals the compiler does not check)', () => {
  const { pairs, codes } = literalsInSource();
  const table: Record<string, { kinds: readonly string[] }> = toolErrorCodes;

  test('each is in the table, under the kind it is given', () => {
    expect(pairs.length).toBeGreaterThan(10);
    for (const { file, kind, code } of pairs)
      expect(table[code]?.kinds, `${code} in ${file}`).toContain(kind);
  });

  test("each lower-case code: '…' is a tool error code (zod's issue code `custom` aside)", () => {
    for (const { file, code } of codes)
      if (code !== 'custom') expect(builtInErrorCodes, `${code} in ${file}`).toContain(code);
  });
});

describe('GraphQL error codes', () => {
  test('are UPPER_SNAKE_CASE, each with who gives it and a one-line meaning', () => {
    for (const [code, entry] of Object.entries(graphqlErrorCodes)) {
      expect(code).toMatch(/^[A-Z]+(_[A-Z]+)*$/);
      expect(entry.from.length, code).toBeGreaterThan(0);
      expect(entry.meaning, code).toMatch(/^\S.*\S$/);
      expect(entry.meaning, code).not.toContain('\n');
    }
  });
});
