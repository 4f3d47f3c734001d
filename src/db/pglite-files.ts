import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What opening PGlite needs from files, started before the server's modules load: this module
 * imports nothing but Node's own, so `openConfiguredDatabase` (app/database.ts) calls it first and
 * the copy of the template and the compile of postgres.wasm run on other threads while the main
 * thread loads PGlite, Drizzle and the rest of the server.
 */

/**
 * An empty, migrated PGlite data directory, made by `npm run build:server` (scripts/build-server.mjs,
 * db/template.ts). A fresh start copies it instead of running initdb and every migration, which
 * takes seconds; the migrations that are newer than it still run at start. A directory rather than
 * a tar that PGlite unpacks: copying files is a few tens of milliseconds, unpacking 42 MB in
 * JavaScript half a second. From src/ and dist/ alike it is dist/'s.
 */
export const pgliteTemplatePath = fileURLToPath(new URL('../../dist/pglite-template', import.meta.url));

export interface PgliteFiles {
  /** postgres.wasm compiled, for PGlite to instantiate instead of reading and compiling it itself. */
  wasmModule: WebAssembly.Module;
}

/**
 * Makes `dataDir` hold a database (a copy of the template when it has none and there is a
 * template; a checkout run through tsx before any build has none, and PGlite runs initdb) and
 * compiles postgres.wasm, both at once. The copy is made beside the directory and renamed into
 * place, so a start killed half-way never leaves half a database, and two first starts at once
 * each rename a whole copy.
 */
export async function preparePgliteFiles(
  dataDir: string,
  template = pgliteTemplatePath,
): Promise<PgliteFiles> {
  const [wasmModule] = await Promise.all([compilePostgres(), copyTemplate(dataDir, template)]);
  return { wasmModule };
}

async function compilePostgres(): Promise<WebAssembly.Module> {
  const path = createRequire(import.meta.url).resolve('@electric-sql/pglite/pglite.wasm');
  // Compiled off the main thread (V8 compiles asynchronously on its own threads).
  return WebAssembly.compile(await readFile(path));
}

async function copyTemplate(dataDir: string, template: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION')) || !existsSync(join(template, 'PG_VERSION'))) return;
  const copy = `${dataDir}.copying-${process.pid}`;
  await rm(copy, { recursive: true, force: true });
  await mkdir(dirname(copy), { recursive: true });
  await cp(template, copy, { recursive: true });
  // rename(2) replaces an empty directory, such as one a start killed before the copy left.
  await rename(copy, dataDir);
}
