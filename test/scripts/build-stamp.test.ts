import { mkdirSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { clearStamp, inputsDigest, isStale, writeStamp } from '../../scripts/build-stamp.mjs';

let root: string;

function put(path: string, text: string) {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** A checkout in miniature, built: its inputs, a server in dist/ and the stamp the build writes. */
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'build-stamp-'));
  put('package.json', '{"name":"x"}');
  put('tsconfig.json', '{}');
  put('tsconfig.build.json', '{}');
  put('src/app/main.ts', 'export {};\n');
  put('src/core/a.ts', 'export const a = 1;\n');
  put('dist/app/main.js', 'export {};\n');
  writeStamp(root, inputsDigest(root));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('a built checkout', () => {
  test('is not stale after its build', () => {
    expect(isStale(root)).toBe(false);
  });

  test('is not stale when every input is newer than the build but unchanged (a fresh clone, a checkout)', () => {
    const later = new Date(Date.now() + 3_600_000);
    for (const path of ['package.json', 'tsconfig.json', 'src/app/main.ts', 'src/core/a.ts'])
      utimesSync(join(root, path), later, later);
    expect(isStale(root)).toBe(false);
  });

  test('is stale when a source changes, even with its old modification time', () => {
    const before = new Date(2020, 0, 1);
    put('src/core/a.ts', 'export const a = 2;\n');
    utimesSync(join(root, 'src/core/a.ts'), before, before);
    expect(isStale(root)).toBe(true);
  });

  test('is stale when a source is added, removed or renamed (a pull)', () => {
    put('src/core/b.ts', 'export const b = 1;\n');
    expect(isStale(root)).toBe(true);
    rmSync(join(root, 'src/core/b.ts'));
    expect(isStale(root)).toBe(false);
    renameSync(join(root, 'src/core/a.ts'), join(root, 'src/core/c.ts'));
    expect(isStale(root)).toBe(true);
  });

  test('is stale when package.json or a tsconfig changes', () => {
    put('tsconfig.build.json', '{"compilerOptions":{}}');
    expect(isStale(root)).toBe(true);
  });

  test('is stale when a migration is added: dist/pglite-template.tar holds every migration applied', () => {
    put('drizzle/0001_next.sql', 'create table t (id int);\n');
    expect(isStale(root)).toBe(true);
  });

  test('is stale without its server or its stamp', () => {
    rmSync(join(root, 'dist/app/main.js'));
    expect(isStale(root)).toBe(true);
    put('dist/app/main.js', 'export {};\n');
    clearStamp(root);
    expect(isStale(root)).toBe(true);
  });
});
