import { mayReadOwned, ownerUserIdSchema } from '../../calls/index.js';
import type { Principal } from '../../core/auth.js';
import { badInput, conflict, notFound } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import { appendEvents } from '../../journal/append.js';
import { decodeText, MAX_FILE_BYTES } from './rules/content.js';
import { compareManifests, unifiedFileDiff } from './rules/diff.js';
import { checkInputPath, MAX_INPUT_FILES } from './rules/inputs.js';
import { checkWorkspacePath, isPathUnder } from './rules/paths.js';
import { PathIndex } from './rules/tree.js';
import type { WorkspaceStore } from './store.js';
import { putContents, readBlobs } from './store-blobs.js';
import { commitCheckpoint } from './store-checkpoints.js';
import { fileEntries, filePaths } from './store-files.js';
import {
  type ChangedFile,
  type CheckpointRow,
  type ImportResult,
  refOf,
  type WorkspaceDiff,
  type WorkspaceRow,
  type WorkspaceSession,
} from './types.js';

/**
 * What operators do with workspaces outside any run (GraphQL, CLI, context assembly): diffs,
 * export and import. They see every file; roots apply only to what an import may place.
 */
export class WorkspaceAdmin {
  constructor(private readonly store: WorkspaceStore) {}

  /** A session outside any run (imports): its own transaction; journal events name `actor`. */
  operatorSession(workspaceId: string, actor: string): WorkspaceSession {
    return {
      workspaceId,
      profileId: null,
      runId: null,
      callId: null,
      actor,
      transaction: (work) =>
        this.store.db.transaction((tx) =>
          work(tx, async (events) => {
            await appendEvents(
              tx,
              events.map((event) => ({ ...event, runId: null, callId: null, actor })),
            );
          }),
        ),
    };
  }

  /**
   * What changed between two checkpoints of a workspace: `from` null is the empty workspace, `to`
   * null its current files.
   */
  async diff(
    workspaceId: string,
    fromRef: string | null,
    toRef: string | null,
    /** Only files this accepts take part (an agent's diff covers the folders its run sees). */
    visible: (path: string) => boolean = () => true,
  ): Promise<WorkspaceDiff> {
    const from = fromRef ? await this.store.requireCheckpoint(workspaceId, fromRef) : null;
    const to = toRef ? await this.store.requireCheckpoint(workspaceId, toRef) : null;
    const before = (from ? await this.store.manifest(from.id) : []).filter((e) => visible(e.path));
    const after = (to ? await this.store.manifest(to.id) : await this.store.files(workspaceId)).filter((e) =>
      visible(e.path),
    );
    const files = compareManifests(
      new Map(before.map((e) => [e.path, e.sha256])),
      new Map(after.map((e) => [e.path, e.sha256])),
    );
    const hashes = files.flatMap((f) => [f.oldSha256, f.newSha256]).filter((h): h is string => h !== null);
    const blobs = await readBlobs(this.store.db, hashes);
    const side = (sha256: string | null) =>
      sha256 === null ? null : { sha256, text: decodeText(blobs.get(sha256)!) };
    const unified = files.map((f) => unifiedFileDiff(f.path, side(f.oldSha256), side(f.newSha256))).join('');
    return { from, to, files, unified };
  }

  /** Every file with its bytes, now or at a checkpoint, for `workspace export`. */
  async exportFiles(
    workspaceId: string,
    checkpointRef: string | null,
  ): Promise<{ checkpoint: CheckpointRow | null; files: Array<{ path: string; content: Buffer }> }> {
    if (!(await this.store.get(workspaceId))) throw notFound(`no workspace ${workspaceId}`);
    const checkpoint = checkpointRef ? await this.store.requireCheckpoint(workspaceId, checkpointRef) : null;
    const entries = checkpoint
      ? await this.store.manifest(checkpoint.id)
      : await this.store.files(workspaceId);
    const blobs = await readBlobs(
      this.store.db,
      entries.map((e) => e.sha256),
    );
    return { checkpoint, files: entries.map((e) => ({ path: e.path, content: blobs.get(e.sha256)! })) };
  }

  /**
   * Adds or replaces files (other files stay) in one checkpointed change. A file is skipped, with
   * the reason, when its path breaks the path rules, lies outside every root of the workspace,
   * would clash with a file or folder, or is too large.
   */
  async importFiles(
    session: WorkspaceSession,
    files: ReadonlyArray<{ path: string; content: Buffer }>,
    /** The user a new workspace belongs to; an existing one must already be theirs (CONFLICT otherwise). */
    owner: { ownerUserId: string | null } | null = null,
  ): Promise<ImportResult> {
    const skipped: ImportResult['skipped'] = [];
    const candidates: Array<{ path: string; content: Buffer }> = [];
    for (const file of files) {
      const checked = checkWorkspacePath(file.path);
      if (!checked.ok) skipped.push({ path: file.path, reason: checked.message });
      else if (file.content.length > MAX_FILE_BYTES) {
        skipped.push({ path: file.path, reason: `larger than ${MAX_FILE_BYTES} bytes` });
      } else candidates.push({ path: checked.path, content: file.content });
    }
    return session.transaction(async (tx, journal) => {
      const workspace = await this.store.lock(tx, session.workspaceId, owner?.ownerUserId ?? null);
      // Importing for one user into another's workspace is a mistake, not a way to reassign it.
      if (owner && workspace.ownerUserId !== owner.ownerUserId)
        throw conflict(
          `workspace ${workspace.id} belongs to ${workspace.ownerUserId ?? 'no user'}, not ${owner.ownerUserId ?? 'no user'}; reassign it first (workspace owner)`,
        );
      const existing = new PathIndex(await filePaths(tx, workspace.id));
      const accepted: Array<{ path: string; content: Buffer }> = [];
      for (const file of candidates) {
        const conflict = existing.has(file.path) ? null : existing.conflict(file.path);
        if (!workspace.roots.some((root) => isPathUnder(file.path, root.path))) {
          skipped.push({ path: file.path, reason: 'outside every root of the workspace' });
        } else if (conflict) {
          skipped.push({ path: file.path, reason: conflict.message });
        } else {
          accepted.push(file);
          existing.add(file.path);
        }
      }
      if (accepted.length === 0) return { imported: [], skipped, checkpoint: null };
      const before = await fileEntries(
        tx,
        workspace.id,
        accepted.map((f) => f.path),
      );
      const imported = await putContents(tx, workspace.id, accepted, before);
      const checkpoint = await commitCheckpoint(
        tx,
        { journal, session, workspace },
        { reason: 'import', label: null, changes: imported },
      );
      return { imported, skipped, checkpoint: refOf(checkpoint) };
    });
  }

  /**
   * A host's files put into the workspace's read-only roots (`inputs/`), all or none, as one
   * checkpointed change journaled with the caller as actor. Unlike an import nothing is skipped:
   * a path that breaks the path rules or lies outside a read-only root is BAD_USER_INPUT naming
   * the file's index. A workspace the caller may not see is NOT_FOUND; one that does not exist
   * is created for `ownerUserId`.
   */
  async putInputs(
    principal: Principal,
    session: WorkspaceSession,
    files: ReadonlyArray<{ path: string; content: Buffer }>,
    owner: string | null,
  ): Promise<{ workspace: WorkspaceRow; changed: ChangedFile[]; checkpoint: CheckpointRow }> {
    const ownerUserId = parseInput(ownerUserIdSchema.describe('ownerUserId'), owner);
    if (files.length === 0) throw badInput('files: put at least one file');
    if (files.length > MAX_INPUT_FILES)
      throw badInput(`files: at most ${MAX_INPUT_FILES} per call, got ${files.length}`);
    const tooLarge = files.findIndex((f) => f.content.length > MAX_FILE_BYTES);
    if (tooLarge >= 0)
      throw badInput(`files[${tooLarge}]: larger than ${MAX_FILE_BYTES} bytes`, { index: tooLarge });
    const existing = await this.store.get(session.workspaceId);
    // Seen or created, the workspace must be the caller's to feed: else it does not exist for it.
    if (!mayReadOwned(principal, existing ? existing.ownerUserId : ownerUserId))
      throw notFound(`no workspace ${session.workspaceId}`);
    return session.transaction(async (tx, journal) => {
      const workspace = await this.store.lock(tx, session.workspaceId, ownerUserId);
      if (!mayReadOwned(principal, workspace.ownerUserId)) throw notFound(`no workspace ${workspace.id}`);
      if (existing && ownerUserId !== null && workspace.ownerUserId !== ownerUserId)
        throw conflict(
          `workspace ${workspace.id} belongs to ${workspace.ownerUserId ?? 'no user'}, not ${ownerUserId}; reassign it first (setWorkspaceOwner)`,
        );
      const index = new PathIndex(await filePaths(tx, workspace.id));
      const accepted = files.map((file, i) => {
        const checked = checkInputPath(file.path, workspace.roots);
        if (!checked.ok)
          throw badInput(`files[${i}].path: ${checked.message}`, { index: i, reason: checked.reason });
        const clash = index.has(checked.path) ? null : index.conflict(checked.path);
        if (clash) throw conflict(`files[${i}].path: ${clash.message}`, { index: i });
        index.add(checked.path);
        return { path: checked.path, content: file.content };
      });
      const paths = accepted.map((f) => f.path);
      const twice = paths.find((path, i) => paths.indexOf(path) !== i);
      if (twice) throw badInput(`files: "${twice}" is given twice`);
      const before = await fileEntries(tx, workspace.id, paths);
      const changed = await putContents(tx, workspace.id, accepted, before);
      const checkpoint = await commitCheckpoint(
        tx,
        { journal, session, workspace },
        { reason: 'import', label: null, changes: changed },
      );
      return { workspace, changed, checkpoint };
    });
  }
}
