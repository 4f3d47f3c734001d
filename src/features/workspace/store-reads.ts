import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/tx.js';
import { workspaceReads } from './tables.js';
import type { ManifestEntry, WorkspaceSession } from './types.js';

/** What a run has read or written of each file, so a later write can tell whether it saw the latest. */
export async function recordReads(
  executor: Executor,
  session: WorkspaceSession,
  entries: readonly ManifestEntry[],
): Promise<void> {
  if (!session.runId || entries.length === 0) return;
  const runId = session.runId;
  await executor
    .insert(workspaceReads)
    .values(entries.map((e) => ({ runId, workspaceId: session.workspaceId, path: e.path, sha256: e.sha256 })))
    .onConflictDoUpdate({
      target: [workspaceReads.runId, workspaceReads.workspaceId, workspaceReads.path],
      set: { sha256: sql`excluded.sha256`, readAt: sql`now()` },
    });
}
