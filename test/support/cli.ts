import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { Services } from '../../src/app/services.js';
import type { Command } from '../../src/cli/command.js';

/** Runs the command of `commands` that `words` select, as the CLI would, and keeps what it printed. */
export async function runCommand(
  commands: Command[],
  services: Services,
  words: string[],
  values: Record<string, string | boolean | string[]> = {},
) {
  const command = commands.find((c) => c.path.every((w, i) => words[i] === w))!;
  const out: string[] = [];
  const err: string[] = [];
  const code = await command.run({ values, positionals: words.slice(command.path.length) }, services, {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out, err };
}

/** A maker of fresh temporary folders; each is removed after the test that made it. */
export function tempDirs(prefix: string): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
