// `npm start` runs dist/; this rebuilds it first when it is missing or older than a source file, so
// a fresh clone, a pull or an edit never starts yesterday's server. Concurrent starts build once.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const root = new URL('..', import.meta.url).pathname;
const stamp = join(root, 'dist', '.build-stamp');
const lock = join(root, 'dist.building');

function newest(path) {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return Math.max(info.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

function stale() {
  let built;
  try {
    built = statSync(stamp).mtimeMs;
  } catch {
    return true;
  }
  const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
  return inputs.some((input) => newest(join(root, input)) > built);
}

if (stale()) {
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A build killed half-way leaves its lock behind; no build takes ten minutes.
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs > 600_000) rmdirSync(lock);
      await sleep(250);
    }
  }
  try {
    if (stale()) {
      process.stderr.write(
        'dist/ is missing or older than src/: building the server (npm run build:server)\n',
      );
      const started = new Date();
      execFileSync('npm', ['run', '-s', 'build:server'], { cwd: root, stdio: 'inherit' });
      // Stamped with the time the build began: a file edited during the build makes the next start rebuild.
      writeFileSync(stamp, '');
      utimesSync(stamp, started, started);
    }
  } finally {
    rmdirSync(lock);
  }
}
