import { and, eq, sql } from 'drizzle-orm';
import { RecoverableToolError } from '../../core/tool-errors.js';
import type { Executor, Tx } from '../../db/tx.js';
import { decodeText } from './rules/content.js';
import type { ParsedPatch } from './rules/patch/types.js';
import { readBlobs } from './store-blobs.js';
import { workspaceFiles, workspaceReads } from './tables.js';
import type { ManifestEntry, WorkspaceSession } from './types.js';

/** The checks a session's operations share: missing files, patchable text, the stale-write rule. */

export async function missingFile(
  executor: Executor,
  workspaceId: string,
  path: string,
): Promise<RecoverableToolError> {
  const inside = await executor
    .select({ path: workspaceFiles.path })
    .from(workspaceFiles)
    .where(
      and(
        eq(workspaceFiles.workspaceId, workspaceId),
        sql`starts_with(${workspaceFiles.path}, ${`${path}/`})`,
      ),
    )
    .limit(1);
  return inside.length > 0
    ? new RecoverableToolError(
        'is_directory',
        `"${path}" is a folder, not a file; list its files with workspace.list_files`,
        { path },
      )
    : new RecoverableToolError(
        'file_not_found',
        `"${path}" does not exist; list files with workspace.list_files`,
        {
          path,
        },
      );
}

export async function patchableTexts(
  executor: Executor,
  entries: readonly ManifestEntry[],
): Promise<Map<string, string>> {
  const blobs = await readBlobs(
    executor,
    entries.map((e) => e.sha256),
  );
  const texts = new Map<string, string>();
  for (const entry of entries) {
    const text = decodeText(blobs.get(entry.sha256)!);
    if (text === null) {
      throw new RecoverableToolError(
        'not_text',
        `"${entry.path}" is not UTF-8 text, so a patch cannot change it. The whole patch was rejected, so no file was changed.`,
        { path: entry.path },
      );
    }
    texts.set(entry.path, text);
  }
  return texts;
}

/**
 * The stale-write rule: content is only discarded by a run that knows it, either because it
 * passes the hash it expects or because it read (or wrote) the file and nobody changed it since.
 * The current hash is not revealed, so the only way past the rule is to read the file again.
 */
export async function requireFresh(
  tx: Tx,
  session: WorkspaceSession,
  current: ManifestEntry,
  expectedHash?: string,
): Promise<void> {
  const { path } = current;
  if (expectedHash !== undefined) {
    if (expectedHash === current.sha256) return;
    throw new RecoverableToolError(
      'stale_write',
      `"${path}" does not have the content you expected (expectedHash ${expectedHash}); it changed. Read it again and redo your change.`,
      { path },
    );
  }
  const [read] = session.runId
    ? await tx
        .select({ sha256: workspaceReads.sha256 })
        .from(workspaceReads)
        .where(
          and(
            eq(workspaceReads.runId, session.runId),
            eq(workspaceReads.workspaceId, session.workspaceId),
            eq(workspaceReads.path, path),
          ),
        )
    : [];
  if (!read) {
    throw new RecoverableToolError(
      'read_required',
      `"${path}" already exists and you have not read it. Read it with workspace.read_file first, so that you do not overwrite content you have not seen.`,
      { path },
    );
  }
  if (read.sha256 !== current.sha256) {
    throw new RecoverableToolError(
      'stale_write',
      `"${path}" changed since you last read it. Read it again and redo your change.`,
      { path },
    );
  }
}

/** Operations that throw away a file's content without matching it: they need a fresh read. */
export function discardsContent(patch: ParsedPatch, path: string): boolean {
  return patch.ops.some(
    (op) =>
      ((op.type === 'add' || op.type === 'delete') && op.path === path) ||
      (op.type === 'update' && op.moveTo === path && op.path !== path),
  );
}
