import { statSync } from 'node:fs';
import type { Principal } from '../core/auth.js';

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

/** The `--user <id>` / `--no-user` pair of commands that give something an owner: one of them must be said. */
export const ownerOptions = {
  user: { type: 'string', description: 'the user it belongs to: only their runs may name it' },
  'no-user': { type: 'boolean', description: 'it belongs to nobody: only runs without a user may name it' },
} as const;

/** Who a workspace or chat is for: the admin must say it, so nothing becomes ownerless by accident. */
export function ownerOption(values: Record<string, unknown>, what: string): { ownerUserId: string | null } {
  const user = typeof values.user === 'string' ? values.user : null;
  if (user !== null && values['no-user'] === true) throw new UsageError('give --user or --no-user, not both');
  if (user === null && values['no-user'] !== true)
    throw new UsageError(`name the user the ${what} belongs to: --user <user-id> (or --no-user)`);
  return { ownerUserId: user };
}

/** A CLI command acts as an admin named `cli`: it runs on the server's own database, as every CLI command does. */
export const CLI_PRINCIPAL: Principal = {
  tokenId: '00000000-0000-4000-8000-00000000c11a',
  name: 'cli',
  role: 'ADMIN',
  userId: null,
  users: [],
  profiles: [],
  planNodes: null,
  extensionId: null,
  legacyUnbound: false,
  idp: null,
};
