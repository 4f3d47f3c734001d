// `npm run build:server`: compiles src/ into dist/ and stamps dist/ with the digest of the inputs it
// compiled (build-stamp.mjs), so that `npm start` after `npm ci` (whose `prepare` builds) or after any
// build does not build again. The digest is taken before compiling: a file edited during the build
// makes the next start rebuild.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { clearStamp, inputsDigest, writeStamp } from './build-stamp.mjs';

const root = new URL('..', import.meta.url).pathname;
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

const digest = inputsDigest(root);
clearStamp(root);
try {
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck'], {
    cwd: root,
    stdio: 'inherit',
  });
} catch {
  process.exit(1);
}
writeStamp(root, digest);
