import { describe, expect, it } from 'vitest';
import { parsePatch, patchPaths } from '../../../../src/features/workspace/rules/patch/parse.js';

const patch = (...body: string[]) => ['*** Begin Patch', ...body, '*** End Patch'].join('\n');

describe('parsePatch', () => {
  it('parses every operation into typed ops with patch line numbers', () => {
    const result = parsePatch(
      patch(
        '*** Add File: docs/new.md',
        '+# Title',
        '+',
        '*** Delete File: old.txt',
        '*** Update File: src/app.py',
        '*** Move to: src/main.py',
        '@@ class App',
        '@@     def greet(self):',
        ' context',
        '-print("Hi")',
        '+print("Hello")',
        '@@',
        '-last',
        '+final',
        '*** End of File',
      ),
    );
    expect(result).toEqual({
      ok: true,
      patch: {
        ops: [
          { type: 'add', path: 'docs/new.md', content: '# Title\n\n', line: 2 },
          { type: 'delete', path: 'old.txt', line: 5 },
          {
            type: 'update',
            path: 'src/app.py',
            moveTo: 'src/main.py',
            line: 6,
            hunks: [
              {
                contexts: ['class App', '    def greet(self):'],
                oldLines: ['context', 'print("Hi")'],
                newLines: ['context', 'print("Hello")'],
                endOfFile: false,
                line: 8,
              },
              { contexts: [], oldLines: ['last'], newLines: ['final'], endOfFile: true, line: 13 },
            ],
          },
        ],
      },
    });
  });

  it('accepts a first hunk without "@@", an empty line as empty context, and CRLF text', () => {
    const result = parsePatch(
      patch('*** Update File: a.txt', ' keep', '', '+added').replaceAll('\n', '\r\n'),
    );
    expect(result).toMatchObject({
      ok: true,
      patch: {
        ops: [{ type: 'update', hunks: [{ oldLines: ['keep', ''], newLines: ['keep', '', 'added'] }] }],
      },
    });
  });

  it('creates an empty file from an Add File without lines, and allows a rename without hunks', () => {
    const result = parsePatch(
      patch('*** Add File: empty.txt', '*** Update File: a.txt', '*** Move to: b.txt'),
    );
    expect(result).toMatchObject({
      ok: true,
      patch: {
        ops: [
          { type: 'add', path: 'empty.txt', content: '' },
          { type: 'update', path: 'a.txt', moveTo: 'b.txt', hunks: [] },
        ],
      },
    });
  });

  it('normalises paths in headers', () => {
    const result = parsePatch(patch('*** Delete File: ./notes//cafe\u0301.md  '));
    expect(result).toMatchObject({ ok: true, patch: { ops: [{ path: 'notes/caf\u00e9.md' }] } });
  });

  it('counts line numbers from the original text, blank lines before the patch included', () => {
    const result = parsePatch(`\n\n${patch('*** Frobnicate File: x')}`);
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_hunk_header', line: 4 } });
  });

  it.each([
    ['empty text', '', 'empty_patch', undefined, 'the patch is empty'],
    ['only whitespace', ' \n\t\n', 'empty_patch', undefined, 'the patch is empty'],
    ['no begin marker', 'hello\n*** End Patch', 'missing_begin_marker', 1, '"hello"'],
    ['no end marker', '*** Begin Patch\n*** Add File: a\n+x', 'missing_end_marker', 3, '"+x"'],
    ['begin marker only', '*** Begin Patch', 'missing_end_marker', 1, '*** End Patch'],
    [
      'text after the end marker',
      `${patch('*** Delete File: a')}\ntrailing`,
      'missing_end_marker',
      4,
      'trailing',
    ],
    ['no operations', patch(), 'empty_patch', 1, 'no file operations'],
    [
      'unknown operation',
      patch('*** Frobnicate File: foo'),
      'invalid_hunk_header',
      2,
      'invalid hunk header at line 2',
    ],
    ['lower-case header', patch('*** add file: foo', '+x'), 'invalid_hunk_header', 2, '*** add file: foo'],
    [
      'blank line after Add File',
      patch('*** Add File: a', '+x', '', '+y'),
      'invalid_hunk_header',
      4,
      'blank lines',
    ],
    [
      'diff line outside Update File',
      patch('*** Delete File: a', '-x'),
      'invalid_hunk_header',
      3,
      'not inside',
    ],
    [
      'End Patch in the middle',
      patch('*** Delete File: a', '*** End Patch', '*** Delete File: b'),
      'invalid_hunk_header',
      3,
      '*** End Patch',
    ],
    ['header without path', patch('*** Add File: ', '+x'), 'missing_path', 2, 'no path'],
    [
      'Update File without hunks',
      patch('*** Update File: a.txt'),
      'empty_update',
      2,
      '"*** Update File: a.txt" has no changes',
    ],
    ['@@ without lines', patch('*** Update File: a.txt', '@@'), 'empty_hunk', 3, 'no lines'],
    [
      '@@ then End of File',
      patch('*** Update File: a.txt', '@@', '*** End of File'),
      'empty_hunk',
      3,
      'no lines',
    ],
    [
      '@@ then next file',
      patch('*** Update File: a.txt', '@@', '*** Delete File: b'),
      'empty_hunk',
      3,
      'no lines',
    ],
    [
      'unprefixed line first in hunk',
      patch('*** Update File: a.txt', '@@', 'foo'),
      'invalid_hunk_line',
      4,
      'unexpected line "foo"',
    ],
    [
      'unprefixed line after a hunk',
      patch('*** Update File: a.txt', '@@', '-x', 'foo'),
      'invalid_hunk_line',
      5,
      '"foo" is not a hunk line',
    ],
    [
      'reserved name',
      patch('*** Add File: out/CON.txt', '+x'),
      'path_reserved_name',
      2,
      'line 2: name "CON.txt"',
    ],
    ['look-alike slash', patch('*** Delete File: a\u2215b'), 'path_lookalike', 2, 'U+2215'],
    [
      'control character in Move to',
      patch('*** Update File: a', '*** Move to: b\u0007', '@@', '-x'),
      'path_control',
      3,
      'line 3',
    ],
  ] as const)('rejects %s', (_, text, code, line, message) => {
    const result = parsePatch(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({ kind: 'recoverable', code });
    expect(result.error.line).toBe(line);
    expect(result.error.message).toContain(message);
  });

  it.each([
    ['Add File', patch('*** Add File: ../escape.txt', '+x'), 'path_traversal', 2],
    ['Delete File', patch('*** Delete File: /etc/passwd'), 'path_absolute', 2],
    ['Update File', patch('*** Update File: C:\\Windows\\win.ini', '@@', '-x'), 'path_drive', 2],
    [
      'Move to',
      patch('*** Update File: ok.txt', '*** Move to: ../../outside.txt', '@@', '-x'),
      'path_traversal',
      3,
    ],
    ['UNC path', patch('*** Delete File: \\\\server\\share\\x'), 'path_unc', 2],
    ['encoded traversal', patch('*** Add File: %2e%2e/%2e%2e/x', '+x'), 'path_encoded', 2],
    ['backslash traversal', patch('*** Add File: out\\..\\..\\x', '+x'), 'path_traversal', 2],
    [
      'second operation',
      patch('*** Add File: fine.txt', '+x', '*** Delete File: a/../../b'),
      'path_traversal',
      4,
    ],
  ] as const)('reports a hostile path in %s as an escape, not a recoverable error', (_, text, code, line) => {
    const result = parsePatch(text);
    expect(result).toMatchObject({ ok: false, error: { kind: 'escape', code, line } });
    if (!result.ok) expect(result.error.message).toContain(`line ${line}:`);
  });
});

describe('patchPaths', () => {
  it('lists every touched path once, move destinations included', () => {
    const result = parsePatch(
      patch(
        '*** Add File: a.txt',
        '+x',
        '*** Update File: a.txt',
        '*** Move to: out/b.txt',
        '@@',
        '-x',
        '+y',
        '*** Delete File: c.txt',
      ),
    );
    if (!result.ok) throw new Error(result.error.message);
    expect(patchPaths(result.patch)).toEqual(['a.txt', 'out/b.txt', 'c.txt']);
  });
});
