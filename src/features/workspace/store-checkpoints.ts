/** Checkpoints: numbered copies of a workspace's manifest, each ending one change with its journal events. */
import { asc, eq, sql } from 'drizzle-orm';
import type { Executor, Tx } from '../../db/tx.js';
import { recordReads } from './store-reads.js';
import {
  type CheckpointReason,
  workspaceCheckpointFiles,
  workspaceCheckpoints,
  workspaceFiles,
  workspaces,
} from './tables.js';
import type {
  ChangedFile,
  CheckpointRow,
  ManifestEntry,
  WorkspaceJournal,
  WorkspaceRow,
  WorkspaceSession,
} from './types.js';

/** Journal payloads stay far below the 8 KiB limit; a long change list is cut and counted. */
const CHANGES_PAYLOAD_BYTES = 4096;

function boundedChanges(changes: readonly ChangedFile[]): { changes: ChangedFile[]; omittedChanges: number } {
  const kept: ChangedFile[] = [];
  let bytes = 0;
  for (const change of changes) {
    bytes += Buffer.byteLength(JSON.stringify(change));
    if (bytes > CHANGES_PAYLOAD_BYTES) break;
    kept.push(change);
  }
  return { changes: kept, omittedChanges: changes.length - kept.length };
}

export function checkpointManifest(executor: Executor, checkpointId: string): Promise<ManifestEntry[]> {
  return executor
    .select({
      path: workspaceCheckpointFiles.path,
      sha256: workspaceCheckpointFiles.sha256,
      size: workspaceCheckpointFiles.size,
    })
    .from(workspaceCheckpointFiles)
    .where(eq(workspaceCheckpointFiles.checkpointId, checkpointId))
    .orderBy(asc(workspaceCheckpointFiles.path));
}

/** Why a change ends in a checkpoint, and what it changed (null: the manifest is unchanged). */
export interface CheckpointCommit {
  reason: CheckpointReason;
  label: string | null;
  changes: readonly ChangedFile[] | null;
  /** A restore's source checkpoint. */
  restoredFrom?: string;
}

/**
 * Ends a change: the next checkpoint (a copy of the current manifest), what the run now knows
 * of the files it wrote, and the journal events — all in the caller's transaction, which holds
 * the workspace's row lock, so checkpoints are numbered without gaps.
 */
export async function commitCheckpoint(
  tx: Tx,
  {
    journal,
    session,
    workspace,
  }: { journal: WorkspaceJournal; session: WorkspaceSession; workspace: WorkspaceRow },
  { reason, label, changes, restoredFrom }: CheckpointCommit,
): Promise<CheckpointRow> {
  const number = workspace.lastCheckpoint + 1;
  await tx
    .update(workspaces)
    .set({ lastCheckpoint: number, updatedAt: new Date() })
    .where(eq(workspaces.id, workspace.id));
  const [stats] = await tx
    .select({
      files: sql<number>`count(*)::int`,
      bytes: sql<string>`coalesce(sum(${workspaceFiles.size}), 0)::bigint`,
    })
    .from(workspaceFiles)
    .where(eq(workspaceFiles.workspaceId, workspace.id));
  const [checkpoint] = await tx
    .insert(workspaceCheckpoints)
    .values({
      workspaceId: workspace.id,
      number,
      reason,
      label,
      restoredFrom: restoredFrom ?? null,
      runId: session.runId,
      callId: session.callId,
      createdBy: session.actor,
      fileCount: Number(stats!.files),
      totalBytes: Number(stats!.bytes),
    })
    .returning();
  await tx.execute(sql`
    insert into ${workspaceCheckpointFiles} (checkpoint_id, path, sha256, size)
    select ${checkpoint!.id}::uuid, path, sha256, size from ${workspaceFiles}
    where workspace_id = ${workspace.id}`);
  if (reason !== 'restore') {
    await recordReads(
      tx,
      session,
      (changes ?? []).flatMap((c) =>
        c.sha256 === undefined ? [] : [{ path: c.path, sha256: c.sha256, size: c.size ?? 0 }],
      ),
    );
  }
  const ref = { workspaceId: workspace.id, checkpointId: checkpoint!.id, checkpoint: number };
  const events: Parameters<WorkspaceJournal>[0] = [];
  if (changes)
    events.push({ type: 'workspace_changed', payload: { ...ref, reason, ...boundedChanges(changes) } });
  events.push({
    type: 'checkpoint_created',
    payload: {
      ...ref,
      reason,
      label,
      fileCount: checkpoint!.fileCount,
      restoredFrom: restoredFrom ?? null,
    },
  });
  await journal(events);
  return checkpoint!;
}
