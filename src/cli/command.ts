import { statSync } from 'node:fs';

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

/**
 * One CLI command. `S` is the part of the services it needs: a feature names only its own, and
 * the composition root (app/run-cli.ts) hands every command the whole set.
 */
export interface Command<S = unknown> {
  /** Words that select the command, e.g. ['token', 'create']. */
  path: string[];
  summary: string;
  usage: string;
  options?: Record<
    string,
    { type: 'string' | 'boolean'; short?: string; multiple?: boolean; description: string }
  >;
  run(
    args: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] },
    services: S,
    io: CliIo,
  ): Promise<number>;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/** A path argument that must name an existing file or directory; a usage error otherwise. */
export function existingPath(path: string | undefined, what: string, kind: 'file' | 'directory'): string {
  if (!path) throw new UsageError(`the ${what} is required`);
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat || (kind === 'file' ? !stat.isFile() : !stat.isDirectory()))
    throw new UsageError(`no such ${kind}: ${path}`);
  return path;
}
