import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { ownerUserIdSchema } from '../../calls/index.js';
import { badInput, notFound } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import type { Db } from '../../db/client.js';
import type { Tx } from '../../db/tx.js';
import { DEFAULT_WORKSPACE_CONFIG, type WorkspaceConfig } from './rules/config.js';
import { checkWorkspacePath } from './rules/paths.js';
import type { WorkspaceRoot } from './rules/roots.js';
import { readBlobs } from './store-blobs.js';
import { checkpointManifest } from './store-checkpoints.js';
import { workspaceCheckpoints, workspaceFiles, workspaces } from './tables.js';
import type { CheckpointRow, ManifestEntry, WorkspaceFileRow, WorkspaceRow } from './types.js';

const isUuid = (value: string) => z.uuid().safeParse(value).success;

/**
 * Where workspaces are kept (issue 4): files, content-addressed blobs and checkpoints. This class
 * holds the workspace rows (creating, locking, owning) and the lookups for operators, which see
 * every file. The storage steps of a change take the caller's transaction so that the change, its
 * automatic checkpoint and its journal events commit together, under the workspace's row lock
 * (`lock`), which orders concurrent writers and numbers checkpoints without gaps; they live beside
 * this class: current files in store-files.ts, blobs in store-blobs.ts, checkpoints in
 * store-checkpoints.ts, what a run has read in store-reads.ts. The roots a profile may see and
 * write are the sessions' business (session.ts), not the store's.
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
    return checkpointManifest(this.db, checkpointId);
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
    const blobs = await readBlobs(this.db, [entry.sha256]);
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
}
