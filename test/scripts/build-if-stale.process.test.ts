import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, test } from 'vitest';
import { isStale } from '../../scripts/build-stamp.mjs';

const repo = new URL('../..', import.meta.url).pathname;
const clone = mkdtempSync(join(tmpdir(), 'fresh-clone-'));
afterAll(() => rmSync(clone, { recursive: true, force: true }));

/** An npm script of the clone, as `npm ci` (prepare) runs it. */
const npmRun = (script: string) => promisify(execFile)('npm', ['run', '-s', script], { cwd: clone });
/** The check `npm start` (scripts/start.mjs) makes before it imports the server. */
const checkBuild = () =>
  promisify(execFile)(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: clone });

test("a fresh clone's first start does not rebuild what its install built, and a changed source does", async () => {
  // What `git clone` and `npm ci` leave: the inputs with new mtimes, the dependencies, then `prepare`'s build.
  for (const path of ['src', 'scripts', 'drizzle', 'package.json', 'tsconfig.json', 'tsconfig.build.json'])
    cpSync(join(repo, path), join(clone, path), { recursive: true });
  symlinkSync(join(repo, 'node_modules'), join(clone, 'node_modules'), 'dir');
  await npmRun('build:server');
  const built = statSync(join(clone, 'dist/app/main.js')).mtimeMs;

  // A checkout made later than the build (or a clock that moved) must not matter: contents decide.
  const later = new Date(Date.now() + 60_000);
  for (const path of readdirSync(join(clone, 'src'), { recursive: true }) as string[])
    utimesSync(join(clone, 'src', path), later, later);
  const start = await checkBuild();
  expect(start.stderr).toBe('');
  expect(statSync(join(clone, 'dist/app/main.js')).mtimeMs).toBe(built);

  // A pull that changes a source: the next start builds (with build:server, as above).
  writeFileSync(join(clone, 'src/app/pulled.ts'), 'export const pulled = true;\n');
  expect(isStale(clone)).toBe(true);
});
