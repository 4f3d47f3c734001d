import { execFileSync } from 'node:child_process';

/**
 * Process tests start `npm start`, which runs dist/: built once here, before any test's clock
 * starts, instead of inside the first server's start (rebuilt only when src/ changed since).
 */
export default function setup() {
  execFileSync('node', ['scripts/build-if-stale.mjs'], {
    cwd: new URL('../..', import.meta.url),
    stdio: 'inherit',
  });
}
