import { describe, expect, it } from 'vitest';
import { applyPatch } from '../../../../src/features/workspace/rules/patch/apply.js';

const patch = (...body: string[]) => ['*** Begin Patch', ...body, '*** End Patch'].join('\n');

function run(files: Record<string, string>, text: string) {
  const snapshot = new Map(Object.entries(files));
  const result = applyPatch(snapshot, text);
  expect(Object.fromEntries(snapshot)).toEqual(files);
  return result;
}

function applied(files: Record<string, string>, text: string): Record<string, string> {
  const result = run(files, text);
  if (!result.ok) throw new Error(result.error.message);
  return Object.fromEntries(result.files);
}

function rejected(files: Record<string, string>, text: string) {
  const result = run(files, text);
  if (result.ok) throw new Error('expected the patch to be rejected');
  return result.error;
}

describe('applyPatch atomicity', () => {
  it('applies nothing when a later operation fails', () => {
    const error = rejected(
      { 'a.txt': 'a\n', 'b.txt': 'b\n' },
      patch(
        '*** Delete File: a.txt',
        '*** Add File: c.txt',
        '+c',
        '*** Update File: b.txt',
        '@@',
        '-nope',
        '+x',
      ),
    );
    expect(error).toMatchObject({
      kind: 'recoverable',
      code: 'lines_not_found',
      path: 'b.txt',
      hunk: 1,
      line: 6,
    });
    expect(error.message).toContain('no file was changed');
  });

  it('reports a hostile path as an escape before touching anything', () => {
    const error = rejected(
      { 'a.txt': 'a\n' },
      patch('*** Delete File: a.txt', '*** Add File: ../../x', '+x'),
    );
    expect(error).toMatchObject({ kind: 'escape', code: 'path_traversal', line: 3, path: '../../x' });
  });

  it('lets later operations see earlier ones, as in Codex', () => {
    expect(
      applied({}, patch('*** Add File: a.txt', '+one', '*** Update File: a.txt', '@@', '-one', '+two')),
    ).toEqual({
      'a.txt': 'two\n',
    });
    expect(
      applied({ 'a.txt': 'old\n' }, patch('*** Delete File: a.txt', '*** Add File: a.txt', '+new')),
    ).toEqual({
      'a.txt': 'new\n',
    });
  });
});

describe('applyPatch hunks', () => {
  const source = [
    'class A:',
    '    def run(self):',
    '        return 1',
    'class B:',
    '    def run(self):',
    '        return 1',
    '',
  ].join('\n');

  it('narrows with several @@ context lines in a row', () => {
    const result = applied(
      { 'm.py': source },
      patch(
        '*** Update File: m.py',
        '@@ class B:',
        '@@     def run(self):',
        '-        return 1',
        '+        return 2',
      ),
    );
    expect(result['m.py']).toBe(source.replace(/return 1\n$/, 'return 2\n'));
  });

  it('names the @@ context that was not found', () => {
    const error = rejected({ 'm.py': source }, patch('*** Update File: m.py', '@@ class C:', '-x', '+y'));
    expect(error).toMatchObject({
      code: 'context_not_found',
      path: 'm.py',
      hunk: 1,
      line: 3,
      expected: ['class C:'],
    });
    expect(error.message).toContain('```\nclass C:\n```');
  });

  it('quotes the missing lines and says which hunk failed', () => {
    const error = rejected(
      { 'f.txt': 'a\nb\nc\n' },
      patch('*** Update File: f.txt', '@@', '-a', '+A', '@@', ' b', '-missing', '+x'),
    );
    expect(error).toMatchObject({ code: 'lines_not_found', hunk: 2, line: 6, expected: ['b', 'missing'] });
    expect(error.message).toContain('"*** Update File: f.txt" (line 2), hunk 2 (line 6)');
    expect(error.message).toContain('```\nb\nmissing\n```');
  });

  it('points out hunks given out of file order', () => {
    const error = rejected(
      { 'f.txt': 'a\nb\nc\n' },
      patch('*** Update File: f.txt', '@@', '-c', '+C', '@@', '-a', '+A'),
    );
    expect(error.message).toContain('below line 3');
    expect(error.message).toContain('They occur at line 1');
  });

  it('appends a pure addition at the end of the file even with a context, as Codex does', () => {
    expect(applied({ 'f.txt': 'head\nbody\n' }, patch('*** Update File: f.txt', '@@ head', '+tail'))).toEqual(
      {
        'f.txt': 'head\nbody\ntail\n',
      },
    );
    expect(rejected({ 'f.txt': 'x\n' }, patch('*** Update File: f.txt', '@@ nowhere', '+tail')).code).toBe(
      'context_not_found',
    );
  });

  it('inserts a pure addition before a trailing blank line and keeps that line (Codex would drop it)', () => {
    expect(applied({ 'f.txt': 'a\n\n' }, patch('*** Update File: f.txt', '@@', '+b'))).toEqual({
      'f.txt': 'a\nb\n\n',
    });
  });

  it('anchors an End of File hunk to the last lines', () => {
    expect(
      applied({ 'f.txt': 'x\ny\nx\n' }, patch('*** Update File: f.txt', '@@', '-x', '+z', '*** End of File')),
    ).toEqual({ 'f.txt': 'x\ny\nz\n' });
    const error = rejected(
      { 'f.txt': 'x\ny\n' },
      patch('*** Update File: f.txt', '@@', '-x', '+z', '*** End of File'),
    );
    expect(error.message).toContain('at the end of the file');
  });

  it('treats a trailing empty context line as the final newline', () => {
    expect(
      applied({ 'f.txt': 'a\nb\n' }, patch('*** Update File: f.txt', '@@', ' a', '-b', '+c', '')),
    ).toEqual({
      'f.txt': 'a\nc\n',
    });
  });

  it('applies through fuzzy matching and writes the patch lines', () => {
    expect(
      applied(
        { 'f.md': '  Intro \u2014 \u201Cquoted\u201D  \nnext\n' },
        patch('*** Update File: f.md', '@@', '-Intro - "quoted"', '+Intro - fixed'),
      ),
    ).toEqual({ 'f.md': 'Intro - fixed\nnext\n' });
  });

  it('adds a final newline to an updated file and handles an empty file', () => {
    expect(applied({ 'f.txt': 'a' }, patch('*** Update File: f.txt', '@@', '-a', '+b'))).toEqual({
      'f.txt': 'b\n',
    });
    expect(applied({ 'f.txt': '' }, patch('*** Update File: f.txt', '@@', '+first'))).toEqual({
      'f.txt': 'first\n',
    });
    expect(applied({ 'f.txt': 'a\n' }, patch('*** Update File: f.txt', '@@', '-a'))).toEqual({ 'f.txt': '' });
    expect(applied({ 'f.txt': 'a\n\n' }, patch('*** Update File: f.txt', '@@', '-a', '+b'))).toEqual({
      'f.txt': 'b\n\n',
    });
  });
});

describe('applyPatch files and directories', () => {
  it('renames without hunks and keeps the content byte for byte', () => {
    const result = run({ 'a.txt': 'no newline' }, patch('*** Update File: a.txt', '*** Move to: b/a.txt'));
    expect(result).toEqual({
      ok: true,
      files: new Map([['b/a.txt', 'no newline']]),
      changes: [{ path: 'b/a.txt', kind: 'move', from: 'a.txt' }],
    });
  });

  it('treats a move onto the same path as an update instead of deleting the file', () => {
    const result = run(
      { 'a.txt': 'x\n' },
      patch('*** Update File: a.txt', '*** Move to: ./a.txt', '@@', '-x', '+y'),
    );
    expect(result).toEqual({
      ok: true,
      files: new Map([['a.txt', 'y\n']]),
      changes: [{ path: 'a.txt', kind: 'update' }],
    });
  });

  it('moves a file into a folder named like itself', () => {
    expect(applied({ a: 'x\n' }, patch('*** Update File: a', '*** Move to: a/b'))).toEqual({ 'a/b': 'x\n' });
  });

  it.each([
    ['adding over a directory', { 'd/x': '' }, patch('*** Add File: d', '+x'), 'is_directory', 'd'],
    [
      'adding beneath a file',
      { 'f.txt': '' },
      patch('*** Add File: f.txt/child', '+x'),
      'parent_is_file',
      'f.txt/child',
    ],
    ['updating a directory', { 'd/x': 'x\n' }, patch('*** Update File: d', '@@', '-x'), 'is_directory', 'd'],
    ['deleting a directory', { 'd/x': '' }, patch('*** Delete File: d'), 'is_directory', 'd'],
    [
      'moving onto a directory',
      { a: 'x\n', 'd/x': '' },
      patch('*** Update File: a', '*** Move to: d'),
      'is_directory',
      'd',
    ],
    [
      'moving beneath a file',
      { a: '', f: '' },
      patch('*** Update File: a', '*** Move to: f/a'),
      'parent_is_file',
      'f/a',
    ],
    ['deleting a missing file', {}, patch('*** Delete File: gone.txt'), 'file_not_found', 'gone.txt'],
    [
      'deleting a file twice',
      { a: '' },
      patch('*** Delete File: a', '*** Delete File: a'),
      'file_not_found',
      'a',
    ],
  ])('rejects %s', (_, files, text, code, path) => {
    expect(rejected(files, text)).toMatchObject({ kind: 'recoverable', code, path });
  });
});
