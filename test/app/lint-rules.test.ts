import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const biome = join(repo, 'node_modules', '.bin', 'biome');

let dirs: string[] = [];

afterEach(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  dirs = [];
});

/** Lints `files` under the repository's biome.json; answers `rule: path:line` for each error. */
async function diagnostics(files: Record<string, string>): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'lint-rules-'));
  dirs.push(dir);
  await copyFile(join(repo, 'biome.json'), join(dir, 'biome.json'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  // Biome exits non-zero when it reports an error; the report on stdout is what the test reads.
  const { stdout } = await promisify(execFile)(
    biome,
    ['lint', '--vcs-enabled=false', '--reporter=json', '.'],
    { cwd: dir },
  ).catch((failure: { stdout: string }) => failure);
  const report = JSON.parse(stdout) as {
    diagnostics: Array<{
      severity: string;
      category: string;
      location: { path: string; start: { line: number } };
    }>;
  };
  return report.diagnostics
    .filter((d) => d.severity === 'error')
    .map((d) => `${d.category.replace('lint/', '')}: ${d.location.path}:${d.location.start.line}`)
    .sort();
}

const asyncWork = 'export async function work(): Promise<number> {\n  return 1;\n}\n';

describe('lint rules', { timeout: 60_000 }, () => {
  it('fail a promise that nobody awaits, returns, voids or catches', async () => {
    const found = await diagnostics({
      'src/core/work.ts': asyncWork,
      'src/core/caller.ts':
        "import { work } from './work.js';\n\nexport function start(): void {\n  work();\n}\n",
    });

    expect(found).toEqual(['nursery/noFloatingPromises: src/core/caller.ts:4']);
  });

  it('pass a promise that is awaited, voided on purpose or given a catch', async () => {
    const found = await diagnostics({
      'src/core/work.ts': asyncWork,
      'src/core/caller.ts': [
        "import { work } from './work.js';",
        '',
        'export async function run(log: (error: unknown) => void): Promise<void> {',
        '  await work();',
        '  void work();',
        '  work().catch(log);',
        '}',
        '',
      ].join('\n'),
    });

    expect(found).toEqual([]);
  });

  it('fail a re-export of a whole module', async () => {
    const found = await diagnostics({
      'src/core/work.ts': asyncWork,
      'src/core/barrel.ts': "export * from './work.js';\n",
    });

    expect(found).toEqual(['performance/noReExportAll: src/core/barrel.ts:1']);
  });
});
