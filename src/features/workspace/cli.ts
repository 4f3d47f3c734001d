import { constants } from 'node:fs';
import { mkdir, open, readdir, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { type Command, ownerOption, ownerOptions, UsageError } from '../../cli/command.js';
import { conflict } from '../../core/errors.js';
import { checkWorkspacePath } from './rules/paths.js';
import type { Workspaces } from './workspaces.js';

/**
 * Export and import go through the same path rules as the tools: a stored path that fails them,
 * or would land outside the target directory, is skipped; an imported name that fails them is
 * skipped and reported. Symbolic links and special files are never followed or read.
 */

async function isEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    if (!(await stat(dir)).isDirectory()) return false;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  return (await readdir(dir)).length === 0;
}

/** Where a workspace path goes under `root`, or null when it would leave it. */
function targetOf(root: string, path: string): string | null {
  const checked = checkWorkspacePath(path);
  if (!checked.ok || checked.path !== path) return null;
  const target = join(root, ...path.split('/'));
  const inside = relative(root, target);
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? null : target;
}

interface Found {
  files: Array<{ path: string; content: Buffer }>;
  skipped: Array<{ path: string; reason: string }>;
}

async function readRegularFile(file: string): Promise<Buffer> {
  // O_NOFOLLOW: a file swapped for a symbolic link after listing is refused, not followed.
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    if (!(await handle.stat()).isFile()) throw new Error('not a regular file');
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

async function collect(root: string, dir: string, found: Found): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    // Only the platform separator splits: a backslash in a POSIX name stays, for the path rules to refuse.
    const path = relative(root, full).split(sep).join('/');
    if (entry.isSymbolicLink()) found.skipped.push({ path, reason: 'symbolic link (not followed)' });
    else if (entry.isDirectory()) await collect(root, full, found);
    else if (!entry.isFile()) found.skipped.push({ path, reason: 'not a regular file' });
    else {
      try {
        found.files.push({ path, content: await readRegularFile(full) });
      } catch (error) {
        found.skipped.push({ path, reason: (error as Error).message });
      }
    }
  }
}

export const workspaceCommands: Command<{ workspaces: Workspaces }>[] = [
  {
    path: ['workspace', 'export'],
    summary: 'Write the files of a workspace (or of one checkpoint) into an empty directory.',
    usage: 'workspace export <workspace-id> <dir> [--checkpoint <id-or-number>]',
    options: {
      checkpoint: {
        type: 'string',
        description: 'export this checkpoint (id or number) instead of the current files',
      },
    },
    async run({ positionals, values }, services, io) {
      const [workspaceId, dir] = positionals;
      if (!workspaceId || !dir)
        throw new UsageError('the workspace id and the target directory are required');
      const root = resolve(dir);
      if (!(await isEmptyOrMissing(root))) throw conflict(`${root} exists and is not an empty directory`);
      const checkpointRef = typeof values.checkpoint === 'string' ? values.checkpoint : null;
      const { checkpoint, files } = await services.workspaces.admin.exportFiles(workspaceId, checkpointRef);
      await mkdir(root, { recursive: true });
      let written = 0;
      for (const file of files) {
        const target = targetOf(root, file.path);
        if (!target) {
          io.err(`skipped ${JSON.stringify(file.path)}: not a safe path`);
          continue;
        }
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, file.content, { flag: 'wx' });
        written += 1;
      }
      const source = checkpoint ? `checkpoint #${checkpoint.number}` : 'current files';
      io.out(`exported ${written} files of workspace ${workspaceId} (${source}) to ${root}`);
      return written === files.length ? 0 : 1;
    },
  },
  {
    path: ['workspace', 'import'],
    summary: 'Add the files of a directory to a workspace (created for --user if needed), as one checkpoint.',
    usage: 'workspace import <dir> <workspace-id> (--user <user-id> | --no-user)',
    options: {
      ...ownerOptions,
    },
    async run({ positionals, values }, services, io) {
      const [dir, workspaceId] = positionals;
      if (!dir || !workspaceId)
        throw new UsageError('the source directory and the workspace id are required');
      const owner = ownerOption(values, 'workspace');
      const root = resolve(dir);
      if (!(await stat(root)).isDirectory()) throw new UsageError(`${root} is not a directory`);
      const found: Found = { files: [], skipped: [] };
      await collect(root, root, found);
      const session = services.workspaces.admin.operatorSession(workspaceId, 'cli:workspace-import');
      const result = await services.workspaces.admin.importFiles(session, found.files, owner);
      const skipped = [...found.skipped, ...result.skipped];
      for (const s of skipped) io.err(`skipped ${JSON.stringify(s.path)}: ${s.reason}`);
      const into = result.checkpoint ? ` (checkpoint #${result.checkpoint.number})` : '';
      io.out(`imported ${result.imported.length} files into workspace ${workspaceId}${into}`);
      return skipped.length === 0 ? 0 : 1;
    },
  },
  {
    path: ['workspace', 'owner'],
    summary: 'Give a workspace to another user: only runs of its owner may name it.',
    usage: 'workspace owner <workspace-id> (--user <user-id> | --no-user)',
    options: {
      ...ownerOptions,
    },
    async run({ positionals, values }, services, io) {
      const [workspaceId] = positionals;
      if (!workspaceId) throw new UsageError('the workspace id is required');
      const { ownerUserId } = ownerOption(values, 'workspace');
      await services.workspaces.store.setOwner(workspaceId, ownerUserId);
      io.out(`workspace ${workspaceId} now belongs to ${ownerUserId ?? 'no user'}`);
      return 0;
    },
  },
];
