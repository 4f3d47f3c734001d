// `npm run build:server`: compiles src/ into dist/ and stamps dist/ with the digest of the inputs it
// compiled (build-stamp.mjs), so that `npm start` after `npm ci` (whose `prepare` builds) or after any
// build does not build again. The digest is taken before compiling: a file edited during the build
// makes the next start rebuild. Then dist/pglite-template/, the migrated PGlite data directory a
// fresh start copies (src/db/template.ts), is made again when the migrations or PGlite changed.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { clearStamp, inputsDigest, templateInputs, writeStamp } from './build-stamp.mjs';

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

const templateDigest = inputsDigest(root, templateInputs);
const templateStamp = join(root, 'dist', 'pglite-template.stamp');
const { pgliteTemplatePath, writePgliteTemplate } = await import('../dist/db/template.js');
const madeFrom = existsSync(templateStamp) ? readFileSync(templateStamp, 'utf8').trim() : '';
if (madeFrom !== templateDigest || !existsSync(pgliteTemplatePath)) {
  rmSync(templateStamp, { force: true });
  await writePgliteTemplate(pgliteTemplatePath);
  writeFileSync(templateStamp, `${templateDigest}\n`);
}
writeStamp(root, digest);
