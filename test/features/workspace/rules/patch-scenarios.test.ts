import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyPatch } from '../../../../src/features/workspace/rules/patch/apply.js';
import type { FileChange } from '../../../../src/features/workspace/rules/patch/types.js';

const SCENARIOS = new URL('../../../fixtures/patches/scenarios/', import.meta.url);

function loadTree(root: URL): Map<string, string> {
  const files = new Map<string, string>();
  if (!existsSync(root)) return files;
  const walk = (dir: URL, prefix: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`);
      else files.set(`${prefix}${entry.name}`, readFileSync(new URL(entry.name, dir), 'utf8'));
    }
  };
  walk(root, '');
  return files;
}

const sorted = (files: ReadonlyMap<string, string>) =>
  Object.fromEntries([...files].sort(([a], [b]) => (a < b ? -1 : 1)));

function load(name: string) {
  const dir = new URL(`${name}/`, SCENARIOS);
  return {
    input: loadTree(new URL('input/', dir)),
    expected: loadTree(new URL('expected/', dir)),
    patch: readFileSync(new URL('patch.txt', dir), 'utf8'),
  };
}

const update = (path: string): FileChange => ({ path, kind: 'update' });

const APPLIED: Record<string, FileChange[]> = {
  '001_add_file': [{ path: 'bar.md', kind: 'add' }],
  '002_multiple_operations': [
    { path: 'nested/new.txt', kind: 'add' },
    { path: 'delete.txt', kind: 'delete' },
    update('modify.txt'),
  ],
  '003_multiple_chunks': [update('multi.txt')],
  '004_move_to_new_directory': [{ path: 'renamed/dir/name.txt', kind: 'move', from: 'old/name.txt' }],
  '010_move_overwrites_existing_destination': [
    { path: 'renamed/dir/name.txt', kind: 'move', from: 'old/name.txt' },
  ],
  '011_add_overwrites_existing_file': [{ path: 'duplicate.txt', kind: 'add' }],
  '014_update_file_appends_trailing_newline': [update('no_newline.txt')],
  '016_pure_addition_update_chunk': [update('input.txt')],
  '017_whitespace_padded_hunk_header': [update('foo.txt')],
  '018_whitespace_padded_patch_markers': [update('file.txt')],
  '019_unicode_simple': [update('foo.txt')],
  '020_delete_file_success': [{ path: 'obsolete.txt', kind: 'delete' }],
  '020_whitespace_padded_patch_marker_lines': [update('file.txt')],
  '021_update_file_deletion_only': [update('lines.txt')],
  '022_update_file_end_of_file_marker': [update('tail.txt')],
};

/** `message` parts every error must contain, so the model learns what exactly failed. */
const REJECTED: Record<string, { code: string; message: string[] }> = {
  '005_rejects_empty_patch': { code: 'empty_patch', message: ['no file operations'] },
  '006_rejects_missing_context': {
    code: 'lines_not_found',
    message: ['modify.txt', 'hunk 1', '```\nmissing\n```', 'no file was changed'],
  },
  '007_rejects_missing_file_delete': { code: 'file_not_found', message: ['missing.txt', 'does not exist'] },
  '008_rejects_empty_update_hunk': { code: 'empty_update', message: ['line 2', 'foo.txt', 'no changes'] },
  '009_requires_existing_file_for_update': {
    code: 'file_not_found',
    message: ['missing.txt', 'does not exist', 'Add File'],
  },
  '012_delete_directory_fails': { code: 'is_directory', message: ['"dir" is a directory'] },
  '013_rejects_invalid_hunk_header': {
    code: 'invalid_hunk_header',
    message: ['invalid hunk header at line 2', '*** Frobnicate File: foo'],
  },
};

const ATOMIC = '015_failure_after_partial_success_leaves_changes';

const scenarios = readdirSync(SCENARIOS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('apply_patch scenarios from the shared fixtures', () => {
  it('covers every scenario folder exactly once', () => {
    expect(fileURLToPath(SCENARIOS)).toMatch(/test[\\/]fixtures[\\/]patches[\\/]scenarios/);
    // "22 scenarios" in the issue counts numbers: there are two 020_ folders, so 23 in all.
    expect(scenarios).toHaveLength(23);
    expect([...Object.keys(APPLIED), ...Object.keys(REJECTED), ATOMIC].sort()).toEqual(scenarios);
  });

  it.each(Object.keys(APPLIED))('%s: applies and matches expected/ exactly', (name) => {
    const { input, expected, patch } = load(name);
    const before = sorted(input);
    const result = applyPatch(input, patch);
    if (!result.ok) throw new Error(result.error.message);
    expect(sorted(result.files)).toEqual(sorted(expected));
    expect(result.changes).toEqual(APPLIED[name]);
    expect(sorted(input)).toEqual(before);
  });

  it.each(Object.keys(REJECTED))(
    '%s: rejects with a precise error and leaves expected/ untouched',
    (name) => {
      const { input, expected, patch } = load(name);
      const before = sorted(input);
      const result = applyPatch(input, patch);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      const want = REJECTED[name]!;
      expect(result.error).toMatchObject({ kind: 'recoverable', code: want.code });
      for (const part of want.message) expect(result.error.message).toContain(part);
      expect(sorted(input)).toEqual(before);
      expect(before).toEqual(sorted(expected));
    },
  );

  // Deliberately inverted: Codex applies operations one by one and leaves created.txt behind
  // when a later one fails (that is what expected/ records). Our patches are atomic, so the
  // failure must leave the workspace exactly as it was.
  it(`${ATOMIC}: INVERTED for atomicity, unlike Codex nothing is applied`, () => {
    const { input, expected, patch } = load(ATOMIC);
    expect(expected.has('created.txt')).toBe(true);
    const before = sorted(input);
    const result = applyPatch(input, patch);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({ kind: 'recoverable', code: 'file_not_found', path: 'missing.txt' });
    expect(result.error.message).toContain('no file was changed');
    expect(sorted(input)).toEqual(before);
    expect(input.has('created.txt')).toBe(false);
  });
});
