// `npm start` (scripts/start.mjs) runs dist/; this builds it first when it is missing or was built from other sources
// (build-stamp.mjs compares contents, so a fresh clone, whose `npm ci` has just built, starts at
// once, and a pull or an edit never starts yesterday's server). Concurrent starts build once.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isStale } from './build-stamp.mjs';

const root = new URL('..', import.meta.url).pathname;
const lock = join(root, 'dist.building');

if (isStale(root)) {
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
    if (isStale(root)) {
      process.stderr.write('dist/ is missing or was built from other sources: building the server\n');
      execFileSync(process.execPath, [join(root, 'scripts', 'build-server.mjs')], { stdio: 'inherit' });
    }
  } finally {
    rmdirSync(lock);
  }
}
