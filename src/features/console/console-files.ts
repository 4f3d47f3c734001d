import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StaticAsset } from './asset.js';

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** Vite writes content-hashed names under assets/: a new build gets new names, so they may be cached forever. */
const immutable = 'public, max-age=31536000, immutable';
/** index.html names the current hashes, so the browser asks again each time (a 304 when unchanged). */
const revalidate = 'no-cache';

/** The repository root: the nearest folder above this file with a package.json (from src/ or a compiled dist/). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('no package.json above the console feature');
    dir = parent;
  }
  return dir;
}

export const defaultConsoleDir = () => join(packageRoot(), 'console', 'dist');

export interface ConsoleBuild {
  /** When index.html was written: a new build writes a new one. */
  stamp: number | null;
  index: StaticAsset;
  /** Path below the mount point (`assets/index-abc.js`) → asset. */
  files: Map<string, StaticAsset>;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

export function buildStamp(dir: string): number | null {
  try {
    return statSync(join(dir, 'index.html')).mtimeMs;
  } catch {
    return null;
  }
}

/** The built console, read into memory; null while it has not been built. */
export function readConsoleBuild(dir: string): ConsoleBuild | null {
  if (!existsSync(join(dir, 'index.html'))) return null;
  const stamp = buildStamp(dir);
  const files = new Map<string, StaticAsset>();
  for (const file of walk(dir)) {
    const path = relative(dir, file).split(sep).join('/');
    if (path === 'index.html') continue;
    const type = types[extname(file)] ?? 'application/octet-stream';
    files.set(
      path,
      new StaticAsset(readFileSync(file), type, path.startsWith('assets/') ? immutable : revalidate),
    );
  }
  return {
    stamp,
    index: new StaticAsset(readFileSync(join(dir, 'index.html')), types['.html']!, revalidate),
    files,
  };
}

export const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>Console not built</title></head>
  <body style="font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem">
    <h1>The approval console is not built</h1>
    <p>This server found no <code>console/dist/index.html</code>. Build it with</p>
    <pre style="background: #f3f4f6; padding: 0.75rem 1rem">npm run build:console</pre>
    <p>and reload this page (<code>npm ci</code> builds it too). The API and GraphiQL at
      <a href="/graphql">/graphql</a> work without it.</p>
  </body>
</html>
`;
