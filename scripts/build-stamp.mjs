// Whether dist/ is the build of this checkout's sources: the build writes a digest of its inputs'
// contents into dist/.build-stamp, and `npm start` rebuilds only when the inputs now digest to
// something else. Contents, not modification times: a fresh clone, a checkout or a pull gives every
// file a new mtime whether or not it changed, and a file can change without its mtime moving on.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/**
 * Everything tsc reads to build dist/ (tsconfig.build.json compiles src/ only), and the migrations,
 * which dist/pglite-template/ holds applied.
 */
const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'drizzle'];

/**
 * What the template is made from: the migrations, package.json, which pins PGlite's version, and the
 * code that makes it (its settings).
 */
export const templateInputs = ['drizzle', 'package.json', 'src/db/template.ts'];

const stampOf = (root) => join(root, 'dist', '.build-stamp');

function files(root, input) {
  const info = statSync(join(root, input), { throwIfNoEntry: false });
  if (!info) return [];
  if (!info.isDirectory()) return [input];
  return readdirSync(join(root, input), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** A digest of the inputs' paths and contents, in a fixed order. */
export function inputsDigest(root, of = inputs) {
  const hash = createHash('sha256');
  const paths = of.flatMap((input) => files(root, input)).sort();
  for (const path of paths) {
    hash.update(`${path.split(sep).join('/')}\0`);
    hash.update(readFileSync(join(root, path)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** True when dist/ has no server, no stamp, or one written for other inputs. */
export function isStale(root) {
  if (!existsSync(join(root, 'dist', 'app', 'main.js'))) return true;
  try {
    return readFileSync(stampOf(root), 'utf8').trim() !== inputsDigest(root);
  } catch {
    return true;
  }
}

/** Before a build: dist/ is about to change, so no stamp may vouch for it until the build succeeds. */
export function clearStamp(root) {
  rmSync(stampOf(root), { force: true });
}

export function writeStamp(root, digest) {
  writeFileSync(stampOf(root), `${digest}\n`);
}
