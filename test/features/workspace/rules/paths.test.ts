import { describe, expect, it } from 'vitest';
import {
  checkWorkspacePath,
  isPathUnder,
  type PathCheck,
} from '../../../../src/features/workspace/rules/paths.js';

type Outcome = { ok: true; path: string } | { ok: false; kind: 'escape' | 'invalid'; code: string };

const ok = (path: string): Outcome => ({ ok: true, path });
const escapes = (code: string): Outcome => ({ ok: false, kind: 'escape', code });
const invalid = (code: string): Outcome => ({ ok: false, kind: 'invalid', code });

const outcome = (result: PathCheck): Outcome =>
  result.ok ? result : { ok: false, kind: result.kind, code: result.code };

const long = (text: string, times: number) => text.repeat(times);

const HOSTILE: Array<[string, Outcome]> = [
  // traversal chains
  ['..', escapes('path_traversal')],
  ['../x', escapes('path_traversal')],
  ['../../etc/passwd', escapes('path_traversal')],
  ['a/../../x', escapes('path_traversal')],
  ['a/b/../../../x', escapes('path_traversal')],
  ['./../x', escapes('path_traversal')],
  ['a/./../../x', escapes('path_traversal')],
  ['a/../..', escapes('path_traversal')],
  ['..//x', escapes('path_traversal')],
  ['output/../../secret', escapes('path_traversal')],
  [`${long('../', 50)}etc/passwd`, escapes('path_traversal')],
  ['...', escapes('path_traversal')],
  ['.../x', escapes('path_traversal')],
  ['.. /x', escapes('path_traversal')],
  ['../.', escapes('path_traversal')],
  ['a/../b', ok('b')],
  ['a/b/../c', ok('a/c')],
  ['a/b/c/../../d', ok('a/d')],
  ['output/../output2/x', ok('output2/x')],
  ['a/b/.../..', ok('a/b')],
  ['a/.../b', invalid('path_trailing_dot_or_space')],
  ['x/..', invalid('path_empty')],
  ['a/b/../..', invalid('path_empty')],
  ['..a/x', ok('..a/x')],
  ['a..b', ok('a..b')],
  ['.hidden/.env', ok('.hidden/.env')],
  // dot segments and empty segments
  ['.', invalid('path_empty')],
  ['./', invalid('path_empty')],
  ['.//.', invalid('path_empty')],
  ['', invalid('path_empty')],
  ['./a', ok('a')],
  ['a/.', ok('a')],
  ['././a/./b', ok('a/b')],
  ['a//b', ok('a/b')],
  ['a/b/', ok('a/b')],
  ['a///b//', ok('a/b')],
  [`${long('./', 600)}x`, ok('x')],
  // absolute, UNC, drive and URL forms
  ['/', escapes('path_absolute')],
  ['/etc/passwd', escapes('path_absolute')],
  ['/workspace/output/x', escapes('path_absolute')],
  ['/..', escapes('path_absolute')],
  ['\\x', escapes('path_absolute')],
  ['\\..\\x', escapes('path_absolute')],
  ['//server/share', escapes('path_unc')],
  ['\\\\server\\share', escapes('path_unc')],
  ['\\\\?\\C:\\Windows', escapes('path_unc')],
  ['\\\\.\\pipe\\x', escapes('path_unc')],
  ['/\\x', escapes('path_unc')],
  ['C:', escapes('path_drive')],
  ['C:\\Windows\\win.ini', escapes('path_drive')],
  ['c:/x', escapes('path_drive')],
  ['C:x', escapes('path_drive')],
  ['Z:..\\x', escapes('path_drive')],
  ['file:///etc/passwd', escapes('path_url')],
  ['http://evil.example/x', escapes('path_url')],
  ['s3://bucket/key', escapes('path_url')],
  // backslashes
  ['a\\b', invalid('path_backslash')],
  ['output\\report.md', invalid('path_backslash')],
  ['..\\x', escapes('path_traversal')],
  ['a\\..\\b', escapes('path_traversal')],
  ['a\\..\\..\\x', escapes('path_traversal')],
  ['a/..\\x', escapes('path_traversal')],
  ['a\\...\\x', escapes('path_traversal')],
  // percent-encoded forms
  ['%2e%2e/x', escapes('path_encoded')],
  ['%2E%2E%2Fetc%2Fpasswd', escapes('path_encoded')],
  ['..%2fx', escapes('path_encoded')],
  ['a%2fb', escapes('path_encoded')],
  ['%5c..%5cx', escapes('path_encoded')],
  ['a/%2e%2e/b', escapes('path_encoded')],
  ['file%2etxt', escapes('path_encoded')],
  ['%252e%252e/x', escapes('path_encoded')],
  ['%25252e%25252e/x', escapes('path_encoded')],
  ['%c0%ae%c0%ae/x', escapes('path_encoded')],
  ['%c0%af', escapes('path_encoded')],
  ['%e0%80%ae%e0%80%ae/x', escapes('path_encoded')],
  ['%u002e%u002e/x', escapes('path_encoded')],
  ['%u2215x', invalid('path_lookalike')],
  ['C%3a/x', escapes('path_encoded')],
  ['%00.txt', invalid('path_control')],
  ['%c0%80.txt', invalid('path_control')],
  ['%ef%bc%8e%ef%bc%8e/x', invalid('path_lookalike')],
  ['100%.txt', ok('100%.txt')],
  ['a%20b.txt', ok('a%20b.txt')],
  ['%41.txt', ok('%41.txt')],
  ['%zz', ok('%zz')],
  ['%25', ok('%25')],
  ['%c3%a9.txt', ok('%c3%a9.txt')],
  // Unicode look-alikes of dot, slash, backslash and colon
  ['\uFF0E\uFF0E\uFF0Fetc', invalid('path_lookalike')],
  ['a\uFF0Fb', invalid('path_lookalike')],
  ['\u2024\u2024/x', invalid('path_lookalike')],
  ['\u2025/x', invalid('path_lookalike')],
  ['\u2026/x', invalid('path_lookalike')],
  ['a\u2215b', invalid('path_lookalike')],
  ['a\u29F8b', invalid('path_lookalike')],
  ['a\u29F9b', invalid('path_lookalike')],
  ['a\u2044b', invalid('path_lookalike')],
  ['a\u2216b', invalid('path_lookalike')],
  ['a\uFF3Cb', invalid('path_lookalike')],
  ['a\uFE68b', invalid('path_lookalike')],
  ['a\uFE52b', invalid('path_lookalike')],
  ['file\u3002txt', invalid('path_lookalike')],
  ['file\uFF61txt', invalid('path_lookalike')],
  ['C\uFF1A/x', invalid('path_lookalike')],
  ['a\uA789b', invalid('path_lookalike')],
  ['a\u0338b', invalid('path_lookalike')],
  ['a\u2571b', invalid('path_lookalike')],
  ['\u2100.txt', invalid('path_lookalike')],
  // NFC versus NFD: both spellings land on the same stored path
  ['cafe\u0301.txt', ok('caf\u00e9.txt')],
  ['caf\u00e9.txt', ok('caf\u00e9.txt')],
  ['A\u030A/x.md', ok('\u00C5/x.md')],
  ['\u212B.txt', ok('\u00C5.txt')],
  ['\u1100\u1161.md', ok('\uAC00.md')],
  ['output/re\u0301sume\u0301.md', ok('output/r\u00e9sum\u00e9.md')],
  // compatibility forms read as their plain form but are another name
  ['\uFB01le.txt', invalid('path_compatibility')],
  ['\uFF4F\uFF55\uFF54\uFF50\uFF55\uFF54/report.md', invalid('path_compatibility')],
  ['output/r\u00B2.md', invalid('path_compatibility')],
  ['\u2460.md', invalid('path_compatibility')],
  ['\u65E5\u672C\u8A9E/\u6587\u66F8.txt', ok('\u65E5\u672C\u8A9E/\u6587\u66F8.txt')],
  // control and invisible characters
  ['a\u0000b', invalid('path_control')],
  ['a.txt\u0000/../../etc', escapes('path_traversal')],
  ['a\nb', invalid('path_control')],
  ['a\rb', invalid('path_control')],
  ['a\tb', invalid('path_control')],
  ['a\u001bb', invalid('path_control')],
  ['a\u007fb', invalid('path_control')],
  ['a\u0085b', invalid('path_control')],
  ['a\u202Etxt.exe', invalid('path_control')],
  ['a\u2066b', invalid('path_control')],
  ['a\u200Bb', invalid('path_control')],
  ['\uFEFFa', invalid('path_control')],
  ['a\uD800b', invalid('path_control')],
  ['a\u2028b', invalid('path_control')],
  // every format character, variation selectors and invisible fillers
  ['out\u00ADput/a.md', invalid('path_control')],
  ['a\u2060b', invalid('path_control')],
  ['a\u200Db', invalid('path_control')],
  ['a\u061Cb', invalid('path_control')],
  ['a\uFE0Fb', invalid('path_control')],
  ['a\u{E0101}b', invalid('path_control')],
  ['a\u{E0041}b', invalid('path_control')],
  ['a\u3164b', invalid('path_control')],
  // Windows reserved device names, with or without extension, any case
  ['CON', invalid('path_reserved_name')],
  ['con.txt', invalid('path_reserved_name')],
  ['output/PRN.md', invalid('path_reserved_name')],
  ['aux.tar.gz', invalid('path_reserved_name')],
  ['NuL', invalid('path_reserved_name')],
  ['COM1', invalid('path_reserved_name')],
  ['com9.log', invalid('path_reserved_name')],
  ['lpt1', invalid('path_reserved_name')],
  ['LPT9.txt', invalid('path_reserved_name')],
  ['COM\u00B9', invalid('path_compatibility')],
  ['CON .txt', invalid('path_reserved_name')],
  ['CONIN$', invalid('path_reserved_name')],
  ['my/con/file.md', invalid('path_reserved_name')],
  ['COM10', ok('COM10')],
  ['COM0.txt', ok('COM0.txt')],
  ['console.txt', ok('console.txt')],
  ['icon.png', ok('icon.png')],
  // trailing dots and spaces, Windows-illegal characters
  ['a.', invalid('path_trailing_dot_or_space')],
  ['a ', invalid('path_trailing_dot_or_space')],
  ['a..', invalid('path_trailing_dot_or_space')],
  ['dir./x', invalid('path_trailing_dot_or_space')],
  ['dir /x', invalid('path_trailing_dot_or_space')],
  [' a', ok(' a')],
  ['a:b', escapes('path_drive')],
  ['ab:c', invalid('path_reserved_char')],
  ['file.txt:stream', invalid('path_reserved_char')],
  ['notes:/x', invalid('path_reserved_char')],
  ['a*b', invalid('path_reserved_char')],
  ['what?.md', invalid('path_reserved_char')],
  ['a<b>', invalid('path_reserved_char')],
  ['a|b', invalid('path_reserved_char')],
  ['"quoted"', invalid('path_reserved_char')],
  // length limits, counted in UTF-8 bytes
  [long('a', 255), ok(long('a', 255))],
  [long('a', 256), invalid('path_segment_too_long')],
  [long('\u00e9', 127), ok(long('\u00e9', 127))],
  [long('\u00e9', 128), invalid('path_segment_too_long')],
  [
    `${long(`${long('a', 100)}/`, 10)}${long('b', 14)}`,
    ok(`${long(`${long('a', 100)}/`, 10)}${long('b', 14)}`),
  ],
  [`${long(`${long('a', 100)}/`, 10)}${long('b', 15)}`, invalid('path_too_long')],
  [long('a/', 3000), invalid('path_too_long')],
  // ordinary paths stay as they are
  ['output/report.md', ok('output/report.md')],
  ['plan/step-1_final (v2).md', ok('plan/step-1_final (v2).md')],
  ['~/x', ok('~/x')],
  ['$HOME/x', ok('$HOME/x')],
];

const label = (raw: string) =>
  raw.length > 60 ? `${JSON.stringify(raw.slice(0, 60))}… (${raw.length})` : JSON.stringify(raw);

describe('checkWorkspacePath', () => {
  it('has a hostile table of at least 100 cases', () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(100);
  });

  it.each(HOSTILE.map(([raw, expected]) => ({ raw, expected, name: label(raw) })))(
    '$name',
    ({ raw, expected }) => {
      const result = checkWorkspacePath(raw);
      expect(outcome(result)).toEqual(expected);
      if (!result.ok) expect(result.message.length).toBeGreaterThan(0);
    },
  );

  it('returns paths that cannot leave the workspace and are fixed points', () => {
    for (const [raw] of HOSTILE) {
      const result = checkWorkspacePath(raw);
      if (!result.ok) continue;
      const segments = result.path.split('/');
      expect(segments.every((segment) => segment !== '' && segment !== '.' && segment !== '..')).toBe(true);
      expect(result.path.includes('\\')).toBe(false);
      expect(result.path).toBe(result.path.normalize('NFC'));
      expect(checkWorkspacePath(result.path)).toEqual(result);
    }
  });

  it('quotes the offending input in the message', () => {
    const result = checkWorkspacePath('../secret');
    expect(result).toMatchObject({ ok: false, kind: 'escape' });
    if (!result.ok) expect(result.message).toContain('"../secret"');
  });
});

describe('isPathUnder', () => {
  it.each([
    ['output/x', 'output/', true],
    ['output/x', 'output', true],
    ['output/sub/deep/file.md', 'output/sub/', true],
    ['output//x', 'output/', true],
    ['output/./a/../b', 'output/', true],
    ['anything/at/all', '', true],
    ['output', 'output/', false],
    ['output', 'output', false],
    ['output2/x', 'output/', false],
    ['outputx', 'output', false],
    ['output.bak/x', 'output/', false],
    ['output/sub2/file', 'output/sub', false],
    ['Output/x', 'output/', false],
    ['scratch/x', 'output/', false],
    ['output/../secret', 'output/', false],
    ['output/../output2/x', 'output/', false],
    ['../output/x', 'output/', false],
    ['/output/x', 'output/', false],
    ['output\\x', 'output/', false],
    ['output%2fx', 'output', false],
    ['output\uFF0Fx', 'output', false],
  ] as const)('%j under %j is %s', (path, root, expected) => {
    expect(isPathUnder(path, root)).toBe(expected);
  });
});
