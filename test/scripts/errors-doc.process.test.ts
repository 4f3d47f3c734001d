import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, test } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'errors-doc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `errors:check` on another file: what CI runs, with its exit code and output. */
async function check(path: string) {
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/errors-doc.ts', '--check', path],
      { cwd: root },
    );
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, output: failed.stderr };
  }
}

test('errors:check passes on the committed doc and fails, by name, on a stale one', async () => {
  const fresh = join(dir, 'fresh.md');
  const stale = join(dir, 'stale.md');
  const committed = readFileSync(join(root, 'docs/errors.md'), 'utf8');
  writeFileSync(fresh, committed);
  writeFileSync(stale, committed.replace('`tool_crashed` | SYSTEM_FAILURE', '`tool_crashed` | RECOVERABLE'));

  expect(await check(fresh)).toEqual({ code: 0, output: `${fresh} is up to date.\n` });
  expect(await check(stale)).toEqual({
    code: 1,
    output: `${stale} is stale: run \`npm run errors:print\` and commit it.\n`,
  });
});
