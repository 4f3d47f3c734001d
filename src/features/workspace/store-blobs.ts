/** Content-addressed blobs: each content stored once per hash, whatever files and checkpoints point at it. */
import { inArray } from 'drizzle-orm';
import { RecoverableToolError } from '../../core/tool-errors.js';
import type { Executor, Tx } from '../../db/tx.js';
import { MAX_FILE_BYTES, sha256Hex } from './rules/content.js';
import { chunks, INSERT_CHUNK, putEntries } from './store-files.js';
import { workspaceBlobs } from './tables.js';
import type { ChangedFile, ManifestEntry } from './types.js';

export async function readBlobs(executor: Executor, hashes: readonly string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(hashes)];
  const found = new Map<string, Buffer>();
  for (const chunk of chunks(unique, INSERT_CHUNK)) {
    const rows = await executor
      .select({ sha256: workspaceBlobs.sha256, content: workspaceBlobs.content })
      .from(workspaceBlobs)
      .where(inArray(workspaceBlobs.sha256, chunk));
    for (const row of rows) found.set(row.sha256, row.content);
  }
  return found;
}

/** Stores new contents (blobs once per hash) and points the files at them; returns what changed. */
export async function putContents(
  tx: Tx,
  workspaceId: string,
  files: ReadonlyArray<{ path: string; content: Buffer }>,
  before: readonly ManifestEntry[],
): Promise<ChangedFile[]> {
  const existed = new Set(before.map((e) => e.path));
  const stored = files.map((f) => ({ ...f, sha256: sha256Hex(f.content), size: f.content.length }));
  const tooLarge = stored.find((f) => f.size > MAX_FILE_BYTES);
  if (tooLarge) {
    throw new RecoverableToolError(
      'file_too_large',
      `"${tooLarge.path}" would be ${tooLarge.size} bytes; a workspace file may hold at most ${MAX_FILE_BYTES}. Nothing was written.`,
      { path: tooLarge.path },
    );
  }
  const uniqueBlobs = [...new Map(stored.map((f) => [f.sha256, f])).values()];
  for (const chunk of chunks(uniqueBlobs, 50)) {
    await tx
      .insert(workspaceBlobs)
      .values(chunk.map((f) => ({ sha256: f.sha256, size: f.size, content: f.content })))
      .onConflictDoNothing();
  }
  await putEntries(tx, workspaceId, stored);
  return stored.map((f) => ({
    path: f.path,
    kind: existed.has(f.path) ? 'update' : 'add',
    sha256: f.sha256,
    size: f.size,
  }));
}
