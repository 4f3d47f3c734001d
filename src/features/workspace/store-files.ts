/**
 * A workspace's current files (path → blob) read and written inside the caller's transaction, so a
 * change and its checkpoint commit together under the workspace's row lock (`WorkspaceStore.lock`).
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/tx.js';
import { ancestorsOf } from './rules/tree.js';
import { workspaceFiles } from './tables.js';
import type { ManifestEntry } from './types.js';

/** Rows per statement when a change touches many paths or blobs. */
export const INSERT_CHUNK = 500;

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The current files as a manifest, in path order. */
export function currentManifest(executor: Executor, workspaceId: string): Promise<ManifestEntry[]> {
  return executor
    .select({ path: workspaceFiles.path, sha256: workspaceFiles.sha256, size: workspaceFiles.size })
    .from(workspaceFiles)
    .where(eq(workspaceFiles.workspaceId, workspaceId))
    .orderBy(asc(workspaceFiles.path));
}

export async function filePaths(executor: Executor, workspaceId: string): Promise<Set<string>> {
  const rows = await executor
    .select({ path: workspaceFiles.path })
    .from(workspaceFiles)
    .where(eq(workspaceFiles.workspaceId, workspaceId));
  return new Set(rows.map((r) => r.path));
}

export async function fileEntries(
  executor: Executor,
  workspaceId: string,
  paths: readonly string[],
): Promise<ManifestEntry[]> {
  if (paths.length === 0) return [];
  return executor
    .select({ path: workspaceFiles.path, sha256: workspaceFiles.sha256, size: workspaceFiles.size })
    .from(workspaceFiles)
    .where(and(eq(workspaceFiles.workspaceId, workspaceId), inArray(workspaceFiles.path, [...paths])));
}

/** Files that decide whether `path` may become a file: those inside it and its ancestors. */
export async function pathNeighbours(
  executor: Executor,
  workspaceId: string,
  path: string,
): Promise<string[]> {
  const ancestors = ancestorsOf(path);
  const rows = await executor
    .select({ path: workspaceFiles.path })
    .from(workspaceFiles)
    .where(
      and(
        eq(workspaceFiles.workspaceId, workspaceId),
        ancestors.length > 0
          ? sql`(starts_with(${workspaceFiles.path}, ${`${path}/`}) or ${inArray(workspaceFiles.path, ancestors)})`
          : sql`starts_with(${workspaceFiles.path}, ${`${path}/`})`,
      ),
    )
    .limit(1);
  return rows.map((r) => r.path);
}

/** Points files at blobs that already exist. */
export async function putEntries(
  tx: Tx,
  workspaceId: string,
  entries: readonly ManifestEntry[],
): Promise<void> {
  for (const chunk of chunks(entries, INSERT_CHUNK)) {
    await tx
      .insert(workspaceFiles)
      .values(chunk.map((e) => ({ workspaceId, path: e.path, sha256: e.sha256, size: e.size })))
      .onConflictDoUpdate({
        target: [workspaceFiles.workspaceId, workspaceFiles.path],
        set: { sha256: sql`excluded.sha256`, size: sql`excluded.size`, updatedAt: sql`now()` },
      });
  }
}

export async function removeFiles(tx: Tx, workspaceId: string, paths: readonly string[]): Promise<void> {
  for (const chunk of chunks(paths, INSERT_CHUNK)) {
    await tx
      .delete(workspaceFiles)
      .where(and(eq(workspaceFiles.workspaceId, workspaceId), inArray(workspaceFiles.path, chunk)));
  }
}
