// Over 400 lines on purpose: files, blobs and checkpoints are one store whose writes share the same
// transaction and revision rules; the path rules and session checks are already their own files.
import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { ownerUserIdSchema } from '../../calls/index.js';
import { badInput, notFound } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import { RecoverableToolError } from '../../core/tool-errors.js';
import type { Db } from '../../db/client.js';
import type { Executor, Tx } from '../../db/tx.js';
import { DEFAULT_WORKSPACE_CONFIG, type WorkspaceConfig } from './rules/config.js';
import { MAX_FILE_BYTES, sha256Hex } from './rules/content.js';
import { checkWorkspacePath } from './rules/paths.js';
import type { WorkspaceRoot } from './rules/roots.js';
import { ancestorsOf } from './rules/tree.js';
import {
  type CheckpointReason,
  workspaceBlobs,
  workspaceCheckpointFiles,
  workspaceCheckpoints,
  workspaceFiles,
  workspaceReads,
  workspaces,
} from './tables.js';
import type {
  ChangedFile,
  CheckpointRow,
  ManifestEntry,
  WorkspaceFileRow,
  WorkspaceJournal,
  WorkspaceRow,
  WorkspaceSession,
} from './types.js';

/** Journal payloads stay far below the 8 KiB limit; a long change list is cut and counted. */
const CHANGES_PAYLOAD_BYTES = 4096;
const INSERT_CHUNK = 500;

const isUuid = (value: string) => z.uuid().safeParse(value).success;

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

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Where workspaces are kept (issue 4): files, content-addressed blobs and checkpoints. Lookups for
 * operators see every file; the storage steps take the caller's executor so that a change, its
 * automatic checkpoint and its journal events commit together, under the workspace's row lock,
 * which orders concurrent writers and numbers checkpoints without gaps. The roots a profile may
 * see and write are the sessions' business (session.ts), not the store's.
 *
 * Over 400 lines on purpose: every write here shares one row lock, checkpoint and journal event
 * per mutation, and splitting it would spread that one transaction shape over several files.
 */
export class WorkspaceStore {
  constructor(
    readonly db: Db,
    private readonly config: WorkspaceConfig = DEFAULT_WORKSPACE_CONFIG,
  ) {}

  /** The workspace's roots, or the defaults a workspace gets when it is first used. */
  async roots(workspaceId: string): Promise<WorkspaceRoot[]> {
    const [row] = await this.db
      .select({ roots: workspaces.roots })
      .from(workspaces)
      .where(eq(workspaces.id, workspaceId))
      .limit(1);
    return row?.roots ?? [...this.config.defaultRoots];
  }

  async get(workspaceId: string): Promise<WorkspaceRow | null> {
    const [row] = await this.db.select().from(workspaces).where(eq(workspaces.id, workspaceId)).limit(1);
    return row ?? null;
  }

  /** Current files, in path order; `folder` limits them to one folder. */
  async files(workspaceId: string, folder: string | null = null): Promise<WorkspaceFileRow[]> {
    const conditions: SQL[] = [eq(workspaceFiles.workspaceId, workspaceId)];
    if (folder) conditions.push(sql`starts_with(${workspaceFiles.path}, ${`${folder}/`})`);
    return this.db
      .select()
      .from(workspaceFiles)
      .where(and(...conditions))
      .orderBy(asc(workspaceFiles.path));
  }

  async checkpoints(workspaceId: string): Promise<CheckpointRow[]> {
    return this.db
      .select()
      .from(workspaceCheckpoints)
      .where(eq(workspaceCheckpoints.workspaceId, workspaceId))
      .orderBy(asc(workspaceCheckpoints.number));
  }

  /** A checkpoint of this workspace by id, or by number when `ref` is all digits. */
  async checkpoint(workspaceId: string, ref: string): Promise<CheckpointRow | null> {
    const byNumber = /^\d{1,9}$/.test(ref);
    if (!byNumber && !isUuid(ref)) return null;
    const [row] = await this.db
      .select()
      .from(workspaceCheckpoints)
      .where(
        and(
          eq(workspaceCheckpoints.workspaceId, workspaceId),
          byNumber ? eq(workspaceCheckpoints.number, Number(ref)) : eq(workspaceCheckpoints.id, ref),
        ),
      )
      .limit(1);
    return row ?? null;
  }

  async requireCheckpoint(workspaceId: string, ref: string): Promise<CheckpointRow> {
    const row = await this.checkpoint(workspaceId, ref);
    if (!row) throw notFound(`workspace ${workspaceId} has no checkpoint ${ref}`);
    return row;
  }

  manifest(checkpointId: string): Promise<ManifestEntry[]> {
    return this.manifestOf(this.db, checkpointId);
  }

  /** One file's bytes, now or at a checkpoint; null when it does not exist there. */
  async fileContent(
    workspaceId: string,
    rawPath: string,
    checkpointRef: string | null = null,
  ): Promise<(ManifestEntry & { content: Buffer }) | null> {
    const checked = checkWorkspacePath(rawPath);
    if (!checked.ok) throw badInput(checked.message, { field: 'path', reason: checked.code });
    const entries = checkpointRef
      ? (await this.manifest((await this.requireCheckpoint(workspaceId, checkpointRef)).id)).filter(
          (e) => e.path === checked.path,
        )
      : await this.db
          .select({ path: workspaceFiles.path, sha256: workspaceFiles.sha256, size: workspaceFiles.size })
          .from(workspaceFiles)
          .where(and(eq(workspaceFiles.workspaceId, workspaceId), eq(workspaceFiles.path, checked.path)));
    const entry = entries[0];
    if (!entry) return null;
    const blobs = await this.blobs(this.db, [entry.sha256]);
    return { ...entry, content: blobs.get(entry.sha256)! };
  }

  /**
   * Creates the workspace on first use with the default roots (owned by `ownerUserId`), then
   * holds its row lock. Runs create theirs when they are created (`claim`); this covers imports.
   */
  async lock(tx: Tx, workspaceId: string, ownerUserId: string | null = null): Promise<WorkspaceRow> {
    await tx
      .insert(workspaces)
      .values({ id: workspaceId, roots: [...this.config.defaultRoots], ownerUserId })
      .onConflictDoNothing();
    const [row] = await tx.select().from(workspaces).where(eq(workspaces.id, workspaceId)).for('update');
    return row!;
  }

  /**
   * The workspace's owner, creating the workspace for `userId` when it does not exist yet: what
   * a run checks when it names one. The row stays locked until the caller's transaction ends, so
   * a concurrent claim for another user waits and then sees this owner.
   */
  async claim(
    tx: Tx,
    workspaceId: string,
    userId: string | null,
  ): Promise<{ ownerUserId: string | null; created: boolean }> {
    const created = await tx
      .insert(workspaces)
      .values({ id: workspaceId, roots: [...this.config.defaultRoots], ownerUserId: userId })
      .onConflictDoNothing()
      .returning({ id: workspaces.id });
    const [row] = await tx
      .select({ ownerUserId: workspaces.ownerUserId })
      .from(workspaces)
      .where(eq(workspaces.id, workspaceId))
      .for('update');
    return { ownerUserId: row!.ownerUserId, created: created.length > 0 };
  }

  /** Gives a workspace to another user (null: to nobody); NOT_FOUND when there is none. */
  async setOwner(workspaceId: string, userId: string | null): Promise<WorkspaceRow> {
    const ownerUserId = parseInput(ownerUserIdSchema, userId);
    const [row] = await this.db
      .update(workspaces)
      .set({ ownerUserId, updatedAt: new Date() })
      .where(eq(workspaces.id, workspaceId))
      .returning();
    if (!row) throw notFound(`no workspace ${workspaceId}`);
    return row;
  }

  manifestOf(executor: Executor, checkpointId: string): Promise<ManifestEntry[]> {
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

  currentOf(executor: Executor, workspaceId: string): Promise<ManifestEntry[]> {
    return executor
      .select({ path: workspaceFiles.path, sha256: workspaceFiles.sha256, size: workspaceFiles.size })
      .from(workspaceFiles)
      .where(eq(workspaceFiles.workspaceId, workspaceId))
      .orderBy(asc(workspaceFiles.path));
  }

  async paths(executor: Executor, workspaceId: string): Promise<Set<string>> {
    const rows = await executor
      .select({ path: workspaceFiles.path })
      .from(workspaceFiles)
      .where(eq(workspaceFiles.workspaceId, workspaceId));
    return new Set(rows.map((r) => r.path));
  }

  async entries(executor: Executor, workspaceId: string, paths: readonly string[]): Promise<ManifestEntry[]> {
    if (paths.length === 0) return [];
    return executor
      .select({ path: workspaceFiles.path, sha256: workspaceFiles.sha256, size: workspaceFiles.size })
      .from(workspaceFiles)
      .where(and(eq(workspaceFiles.workspaceId, workspaceId), inArray(workspaceFiles.path, [...paths])));
  }

  /** Files that decide whether `path` may become a file: those inside it and its ancestors. */
  async neighbours(executor: Executor, workspaceId: string, path: string): Promise<string[]> {
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

  async blobs(executor: Executor, hashes: readonly string[]): Promise<Map<string, Buffer>> {
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

  async recordReads(executor: Executor, session: WorkspaceSession, entries: readonly ManifestEntry[]) {
    if (!session.runId || entries.length === 0) return;
    const runId = session.runId;
    await executor
      .insert(workspaceReads)
      .values(
        entries.map((e) => ({ runId, workspaceId: session.workspaceId, path: e.path, sha256: e.sha256 })),
      )
      .onConflictDoUpdate({
        target: [workspaceReads.runId, workspaceReads.workspaceId, workspaceReads.path],
        set: { sha256: sql`excluded.sha256`, readAt: sql`now()` },
      });
  }

  /** Stores new contents (blobs once per hash) and points the files at them; returns what changed. */
  async putContents(
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
    await this.putEntries(tx, workspaceId, stored);
    return stored.map((f) => ({
      path: f.path,
      kind: existed.has(f.path) ? 'update' : 'add',
      sha256: f.sha256,
      size: f.size,
    }));
  }

  /** Points files at blobs that already exist. */
  async putEntries(tx: Tx, workspaceId: string, entries: readonly ManifestEntry[]): Promise<void> {
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

  async removeFiles(tx: Tx, workspaceId: string, paths: readonly string[]): Promise<void> {
    for (const chunk of chunks(paths, INSERT_CHUNK)) {
      await tx
        .delete(workspaceFiles)
        .where(and(eq(workspaceFiles.workspaceId, workspaceId), inArray(workspaceFiles.path, chunk)));
    }
  }

  /**
   * Ends a change: the next checkpoint (a copy of the current manifest), what the run now knows
   * of the files it wrote, and the journal events — all in the caller's transaction.
   */
  async commit(
    tx: Tx,
    journal: WorkspaceJournal,
    session: WorkspaceSession,
    workspace: WorkspaceRow,
    reason: CheckpointReason,
    label: string | null,
    changes: readonly ChangedFile[] | null,
    extra: { restoredFrom?: string } = {},
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
        restoredFrom: extra.restoredFrom ?? null,
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
      await this.recordReads(
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
        restoredFrom: extra.restoredFrom ?? null,
      },
    });
    await journal(events);
    return checkpoint!;
  }
}
