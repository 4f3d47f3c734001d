import { describe, expect, it } from 'vitest';
import { RecoverableToolError, SystemFailure } from '../../../src/core/tool-errors.js';
import type { Db } from '../../../src/db/client.js';
import {
  type WorkspaceSession,
  WorkspaceSessions,
  WorkspaceStore,
} from '../../../src/features/workspace/index.js';

/**
 * Every tool operation checks its paths before it touches storage: here storage throws on any
 * use, so a case passes only if the path was refused first, with the right class of error.
 */
const storage = new Proxy(
  {},
  {
    get() {
      throw new Error('storage was touched');
    },
  },
) as Db;

const session: WorkspaceSession = {
  workspaceId: 'ws',
  profileId: null,
  runId: '00000000-0000-4000-8000-000000000009',
  callId: null,
  actor: 'test',
  transaction: () => {
    throw new Error('storage was touched');
  },
};

const service = new WorkspaceSessions(new WorkspaceStore(storage));

const ROOTS = ['', 'output/', 'inputs/', 'scratch/deep/'];

const ESCAPES: string[] = [
  // traversal chains from inside each root, one level too many
  ...ROOTS.flatMap((root) => {
    const depth = root.split('/').filter(Boolean).length;
    return [
      `${root}${'../'.repeat(depth + 1)}x`,
      `${root}${'../'.repeat(depth + 3)}etc/passwd`,
      `${root}./${'../'.repeat(depth + 1)}secret`,
      `${root}${'..\\'.repeat(depth + 1)}x`,
      `${root}${'.../'.repeat(depth + 1)}x`,
      `${root}${'.. /'.repeat(depth + 1)}x`,
    ];
  }),
  '..',
  '../',
  'output/..//../x',
  'output/sub/../../..',
  `${'../'.repeat(200)}etc/passwd`,
  'a/b/c/../../../../d',
  'a.txt\u0000/../../etc',
  // absolute and network forms
  '/',
  '/etc/passwd',
  '/output/report.md',
  '/..',
  '\\x',
  '\\..\\x',
  '//server/share',
  '//server/share/output/x',
  '\\\\server\\share',
  '\\\\?\\C:\\Windows',
  '\\\\.\\pipe\\x',
  '/\\x',
  // drives and URLs
  'C:',
  'C:\\Windows\\win.ini',
  'c:/x',
  'C:x',
  'Z:..\\x',
  'a:b',
  'file:///etc/passwd',
  'http://evil.example/x',
  's3://bucket/key',
  // backslash traversal mixed with slashes
  'output\\..\\..\\x',
  'output/..\\x',
  'a\\...\\x',
  // percent-encoded path syntax, single, double and overlong
  '%2e%2e/x',
  '%2E%2E%2Fetc%2Fpasswd',
  '..%2fx',
  'output%2f..%2f..%2fx',
  'output/%2e%2e/%2e%2e/x',
  '%5c..%5cx',
  'a%2fb',
  'file%2etxt',
  '%252e%252e/x',
  '%25252e%25252e/x',
  '%c0%ae%c0%ae/x',
  '%c0%af',
  '%e0%80%ae%e0%80%ae/x',
  '%u002e%u002e/x',
  'C%3a/x',
];

const INVALID: string[] = [
  // control and invisible characters
  'output/a\u0000b',
  'output/a\tb',
  'output/a\u001bb',
  'output/a\u202Etxt.exe',
  'output/a\u200Bb',
  'output/\uFEFFa',
  'output/a\uD800b',
  '%00.txt',
  // look-alikes of '.', '/', '\' and ':'
  'output/\uFF0E\uFF0E\uFF0Fetc',
  'output\u2215x',
  'output/a\u2044b',
  '\u2024\u2024/x',
  'output/file\u3002txt',
  'output/a\uFF3Cb',
  'C\uFF1A/x',
  '%ef%bc%8e%ef%bc%8e/x',
  // Windows reserved names and characters
  'output/CON',
  'output/con.txt',
  'output/aux.tar.gz',
  'output/COM1',
  'output/LPT9.txt',
  'output/CONIN$',
  'output/a.',
  'output/dir./x',
  'output/a*b',
  'output/what?.md',
  'output/a|b',
  'output/ab:c',
  'output/"quoted"',
  'output/a<b>',
  'output\\report.md',
  // names of nothing, and names too long
  'output/..',
  'x/..',
  `output/${'a'.repeat(256)}`,
  `output/${'\u00e9'.repeat(128)}`,
  'a/'.repeat(3000),
];

const patchWith = (path: string) => `*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch`;
// A patch header is trimmed and split on newlines, so those cases name another path there.
const fitsPatchHeader = (path: string) => path.trim() === path && !/[\r\n]/.test(path) && path !== '';

type Operation = [string, (path: string) => Promise<unknown>, (path: string) => boolean];

const OPERATIONS: Operation[] = [
  ['list_files', (path) => service.list(session, path, 10), (path) => !['', '.', './'].includes(path)],
  ['read_file', (path) => service.read(session, path, {}, { maxBytes: 100, maxTokens: null }), () => true],
  ['write_file', (path) => service.write(session, { path, content: 'x', mode: 'create' }), () => true],
  ['apply_patch', (path) => service.patch(session, patchWith(path)), fitsPatchHeader],
  ['finish', (path) => service.finish(session, [path]), () => true],
];

async function refusal(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('the operation was not refused');
}

describe('hostile paths never reach storage', () => {
  it('covers more than a hundred distinct hostile paths', () => {
    expect(new Set([...ESCAPES, ...INVALID]).size).toBeGreaterThan(100);
  });

  for (const [name, operation, applies] of OPERATIONS) {
    it(`${name}: every escape is a system failure raised before any storage access`, async () => {
      for (const path of ESCAPES.filter(applies)) {
        const error = await refusal(() => operation(path));
        expect(error, JSON.stringify(path)).toBeInstanceOf(SystemFailure);
        expect((error as SystemFailure).code, JSON.stringify(path)).toBe('path_escape');
      }
    });

    it(`${name}: every ill-formed path is a recoverable error raised before any storage access`, async () => {
      for (const path of INVALID.filter(applies)) {
        const error = await refusal(() => operation(path));
        expect(error, JSON.stringify(path)).toBeInstanceOf(RecoverableToolError);
        expect((error as RecoverableToolError).code, JSON.stringify(path)).toMatch(/^path_/);
      }
    });
  }
});
