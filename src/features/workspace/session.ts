import { and, eq } from 'drizzle-orm';
import { RecoverableToolError, SystemFailure } from '../../core/tool-errors.js';
import {
  accessFor,
  DEFAULT_WORKSPACE_CONFIG,
  requiredArtifactsFor,
  type WorkspaceConfig,
} from './rules/config.js';
import { decodeText, encodeText } from './rules/content.js';
import { compareManifests } from './rules/diff.js';
import { checkManifest, manifestMessage } from './rules/manifest.js';
import { applyParsedPatch } from './rules/patch/apply.js';
import { parsePatch, patchPaths } from './rules/patch/parse.js';
import type { PatchError } from './rules/patch/types.js';
import { checkWorkspacePath, isPathUnder } from './rules/paths.js';
import { type ReadBudget, type ReadRange, selectRange } from './rules/read-range.js';
import {
  canSee,
  canSeeFolder,
  canWrite,
  describeRoots,
  notVisibleMessage,
  notWritableMessage,
  type RootAccess,
} from './rules/roots.js';
import { PathIndex } from './rules/tree.js';
import { discardsContent, missingFile, patchableTexts, requireFresh } from './session-checks.js';
import type { WorkspaceStore } from './store.js';
import { putContents, readBlobs } from './store-blobs.js';
import { checkpointManifest, commitCheckpoint } from './store-checkpoints.js';
import {
  currentManifest,
  fileEntries,
  filePaths,
  pathNeighbours,
  putEntries,
  removeFiles,
} from './store-files.js';
import { recordReads } from './store-reads.js';
import { workspaceCheckpoints } from './tables.js';
import {
  type ChangedFile,
  type CheckpointRef,
  type CheckpointRow,
  type FinishResult,
  type ListResult,
  type ReadResult,
  type RestoreResult,
  refOf,
  type WorkspaceFileRow,
  type WorkspaceSession,
  type WriteInput,
  type WriteResult,
} from './types.js';

/**
 * Path rules first, before any storage access: an escape fails the run (seed §11), an ill-formed
 * path is something the model can fix.
 */
function requirePath(raw: string): string {
  const checked = checkWorkspacePath(raw);
  if (checked.ok) return checked.path;
  if (checked.kind === 'escape')
    throw new SystemFailure('path_escape', `${checked.message} (${checked.code})`);
  throw new RecoverableToolError(checked.code, checked.message, { path: raw });
}

function patchError(error: PatchError): Error {
  if (error.kind === 'escape') {
    return new SystemFailure('path_escape', `${error.message} (${error.code})`);
  }
  const { kind: _kind, message, ...details } = error;
  return new RecoverableToolError(error.code, message, details);
}

/**
 * What a run does in its workspace through the workspace tools: every operation takes the
 * session of the call and applies the roots its profile may see and write. Its refusals are
 * recoverable tool errors, worded for the model; a path escape is a system failure (seed §11).
 */
export class WorkspaceSessions {
  constructor(
    private readonly store: WorkspaceStore,
    private readonly config: WorkspaceConfig = DEFAULT_WORKSPACE_CONFIG,
  ) {}

  /** The current files a profile may see, for readers outside a call (context assembly). */
  async visibleFiles(workspaceId: string, profileId: string | null): Promise<WorkspaceFileRow[]> {
    const access = accessFor(this.config, await this.store.roots(workspaceId), profileId);
    return (await this.store.files(workspaceId)).filter((f) => canSee(access, f.path));
  }

  /** What the session's profile may see and write in its workspace. */
  async access(session: WorkspaceSession): Promise<RootAccess> {
    return accessFor(this.config, await this.store.roots(session.workspaceId), session.profileId);
  }

  async list(session: WorkspaceSession, rawFolder: string | null, limit: number): Promise<ListResult> {
    const everything = rawFolder === null || ['', '.', './'].includes(rawFolder);
    const folder = everything ? null : requirePath(rawFolder.replace(/(?<=.)\/+$/, ''));
    const access = await this.access(session);
    const overlapsRoot = (f: string) =>
      access.visible.some((v) => v === f || isPathUnder(f, v) || isPathUnder(v, f));
    if (folder && !overlapsRoot(folder)) {
      throw new RecoverableToolError('path_not_visible', notVisibleMessage(`${folder}/`, access), {
        path: rawFolder,
      });
    }
    const visible = (await this.store.files(session.workspaceId, folder)).filter((f) =>
      canSee(access, f.path),
    );
    return {
      roots: describeRoots(access),
      files: visible.slice(0, limit).map(({ path, sha256, size }) => ({ path, sha256, size })),
      total: visible.length,
      truncated: visible.length > limit,
    };
  }

  async read(
    session: WorkspaceSession,
    rawPath: string,
    range: ReadRange,
    budget: ReadBudget,
  ): Promise<ReadResult> {
    const path = requirePath(rawPath);
    const access = await this.access(session);
    if (!canSee(access, path)) {
      throw new RecoverableToolError('path_not_visible', notVisibleMessage(path, access), { path });
    }
    const [entry] = await fileEntries(this.store.db, session.workspaceId, [path]);
    if (!entry) throw await missingFile(this.store.db, session.workspaceId, path);
    const content = (await readBlobs(this.store.db, [entry.sha256])).get(entry.sha256)!;
    const text = decodeText(content);
    if (text === null) {
      throw new RecoverableToolError(
        'not_text',
        `"${path}" is not UTF-8 text, so it cannot be read as text`,
        {
          path,
        },
      );
    }
    const outcome = selectRange(text, range, budget);
    if (!outcome.ok)
      throw new RecoverableToolError('invalid_range', `${outcome.message} ("${path}")`, { path });
    await recordReads(this.store.db, session, [entry]);
    return { path, sha256: entry.sha256, size: entry.size, ...outcome.selection };
  }

  async write(session: WorkspaceSession, input: WriteInput): Promise<WriteResult> {
    const path = requirePath(input.path);
    return session.transaction(async (tx, journal) => {
      const workspace = await this.store.lock(tx, session.workspaceId);
      const access = accessFor(this.config, workspace.roots, session.profileId);
      if (!canWrite(access, path)) {
        throw new RecoverableToolError('path_not_writable', notWritableMessage(path, access), { path });
      }
      const [current] = await fileEntries(tx, workspace.id, [path]);
      if (current && input.mode === 'create') {
        throw new RecoverableToolError(
          'file_exists',
          `"${path}" already exists. Read it and write with mode "replace" (or "append"), or choose another path.`,
          { path },
        );
      }
      if (!current && input.mode === 'replace') {
        throw new RecoverableToolError(
          'file_not_found',
          `"${path}" does not exist, so there is nothing to replace. Write it with mode "create".`,
          { path },
        );
      }
      if (current && (input.mode === 'replace' || input.expectedHash !== undefined)) {
        await requireFresh(tx, session, current, input.expectedHash);
      }
      if (!current) {
        const conflict = new PathIndex(await pathNeighbours(tx, workspace.id, path)).conflict(path);
        if (conflict) throw new RecoverableToolError(conflict.code, conflict.message, { path });
      }
      const previous =
        current && input.mode === 'append'
          ? (await readBlobs(tx, [current.sha256])).get(current.sha256)!
          : null;
      const content = previous
        ? Buffer.concat([previous, encodeText(input.content)])
        : encodeText(input.content);
      const changes = await putContents(tx, workspace.id, [{ path, content }], current ? [current] : []);
      const checkpoint = await commitCheckpoint(
        tx,
        { journal, session, workspace },
        { reason: 'write', label: null, changes: changes },
      );
      const written = changes[0]!;
      return {
        path,
        sha256: written.sha256!,
        size: written.size!,
        created: !current,
        checkpoint: refOf(checkpoint),
      };
    });
  }

  async patch(
    session: WorkspaceSession,
    text: string,
  ): Promise<{ changes: ChangedFile[]; checkpoint: CheckpointRef }> {
    const parsed = parsePatch(text);
    if (!parsed.ok) throw patchError(parsed.error);
    const touched = patchPaths(parsed.patch);
    return session.transaction(async (tx, journal) => {
      const workspace = await this.store.lock(tx, session.workspaceId);
      const access = accessFor(this.config, workspace.roots, session.profileId);
      const blocked = touched.find((path) => !canWrite(access, path));
      if (blocked) {
        throw new RecoverableToolError(
          'path_not_writable',
          `${notWritableMessage(blocked, access)}. The whole patch was rejected, so no file was changed.`,
          { path: blocked },
        );
      }
      const before = await fileEntries(tx, workspace.id, touched);
      for (const entry of before) {
        if (discardsContent(parsed.patch, entry.path)) await requireFresh(tx, session, entry);
      }
      const texts = await patchableTexts(tx, before);
      const snapshot = new Map<string, string>();
      // Only the touched files need their content; the others matter to the engine as names.
      for (const path of await filePaths(tx, workspace.id)) snapshot.set(path, texts.get(path) ?? '');
      const applied = applyParsedPatch(snapshot, parsed.patch);
      if (!applied.ok) throw patchError(applied.error);
      const written = touched.flatMap((path) => {
        const after = applied.files.get(path);
        return after === undefined || after === texts.get(path) ? [] : [{ path, content: encodeText(after) }];
      });
      const removed = before.filter((entry) => !applied.files.has(entry.path)).map((entry) => entry.path);
      const stored = await putContents(tx, workspace.id, written, before);
      await removeFiles(tx, workspace.id, removed);
      const final = new Map<string, { sha256?: string; size?: number }>(
        [...before, ...stored].map((e) => [e.path, e]),
      );
      const changes = applied.changes.map((change): ChangedFile => {
        const now = applied.files.has(change.path) ? final.get(change.path) : undefined;
        return {
          path: change.path,
          kind: change.kind,
          ...(change.from !== undefined ? { from: change.from } : {}),
          ...(now?.sha256 !== undefined ? { sha256: now.sha256, size: now.size! } : {}),
        };
      });
      const checkpoint = await commitCheckpoint(
        tx,
        { journal, session, workspace },
        { reason: 'patch', label: null, changes: changes },
      );
      return { changes, checkpoint: refOf(checkpoint) };
    });
  }

  async createCheckpoint(session: WorkspaceSession, label: string | null): Promise<CheckpointRow> {
    return session.transaction(async (tx, journal) => {
      const workspace = await this.store.lock(tx, session.workspaceId);
      return commitCheckpoint(
        tx,
        { journal, session, workspace },
        { reason: 'manual', label: label, changes: null },
      );
    });
  }

  async restore(session: WorkspaceSession, number: number): Promise<RestoreResult> {
    return session.transaction(async (tx, journal) => {
      const workspace = await this.store.lock(tx, session.workspaceId);
      const access = accessFor(this.config, workspace.roots, session.profileId);
      const [target] = await tx
        .select()
        .from(workspaceCheckpoints)
        .where(
          and(eq(workspaceCheckpoints.workspaceId, workspace.id), eq(workspaceCheckpoints.number, number)),
        );
      if (!target) {
        const latest =
          workspace.lastCheckpoint === 0 ? 'it has none yet' : `the latest is #${workspace.lastCheckpoint}`;
        throw new RecoverableToolError(
          'checkpoint_not_found',
          `This workspace has no checkpoint #${number}; ${latest}.`,
          { number },
        );
      }
      const [previous] = await tx
        .select()
        .from(workspaceCheckpoints)
        .where(
          and(
            eq(workspaceCheckpoints.workspaceId, workspace.id),
            eq(workspaceCheckpoints.number, workspace.lastCheckpoint),
          ),
        );
      const wanted = await checkpointManifest(tx, target.id);
      const current = await currentManifest(tx, workspace.id);
      const diffs = compareManifests(
        new Map(current.map((e) => [e.path, e.sha256])),
        new Map(wanted.map((e) => [e.path, e.sha256])),
      );
      const blocked = diffs.filter((d) => !canWrite(access, d.path)).map((d) => d.path);
      if (blocked.length > 0) {
        throw new RecoverableToolError(
          'path_not_writable',
          `Restoring checkpoint #${number} would change files you may not write: ${blocked.join(', ')}. Nothing was restored.`,
          { paths: blocked },
        );
      }
      const wantedByPath = new Map(wanted.map((e) => [e.path, e]));
      const put = diffs.flatMap((d) => (d.newSha256 === null ? [] : [wantedByPath.get(d.path)!]));
      await putEntries(tx, workspace.id, put);
      await removeFiles(
        tx,
        workspace.id,
        diffs.filter((d) => d.newSha256 === null).map((d) => d.path),
      );
      const changes = diffs.map(
        (d): ChangedFile => ({
          path: d.path,
          kind: d.change === 'added' ? 'add' : d.change === 'deleted' ? 'delete' : 'update',
          ...(d.newSha256 !== null ? { sha256: d.newSha256, size: wantedByPath.get(d.path)!.size } : {}),
        }),
      );
      const checkpoint = await commitCheckpoint(
        tx,
        { journal, session, workspace },
        { reason: 'restore', label: `restored #${number}`, changes, restoredFrom: target.id },
      );
      return {
        restored: refOf(target),
        previous: refOf(previous!),
        changes: diffs,
        checkpoint: refOf(checkpoint),
      };
    });
  }

  async finish(session: WorkspaceSession, rawArtifacts: readonly string[]): Promise<FinishResult> {
    // A trailing slash names a folder that must hold a non-empty file.
    const declared = rawArtifacts.map((raw) =>
      raw.endsWith('/') ? `${requirePath(raw)}/` : requirePath(raw),
    );
    return session.transaction(async (tx, journal) => {
      const workspace = await this.store.lock(tx, session.workspaceId);
      const access = accessFor(this.config, workspace.roots, session.profileId);
      const hidden = declared.find((path) =>
        path.endsWith('/') ? !canSeeFolder(access, path.slice(0, -1)) : !canSee(access, path),
      );
      if (hidden) {
        throw new RecoverableToolError('path_not_visible', notVisibleMessage(hidden, access), {
          path: hidden,
        });
      }
      const files = await currentManifest(tx, workspace.id);
      const requirements = [...requiredArtifactsFor(this.config, session.profileId), ...declared];
      const problems = checkManifest(requirements, new Map(files.map((f) => [f.path, f.size])));
      if (problems.length > 0) {
        throw new RecoverableToolError('manifest_incomplete', manifestMessage(problems), {
          missing: problems,
        });
      }
      const artifacts = files.filter(
        (f) =>
          f.size > 0 && requirements.some((r) => (r.endsWith('/') ? isPathUnder(f.path, r) : f.path === r)),
      );
      const checkpoint = await commitCheckpoint(
        tx,
        { journal, session, workspace },
        { reason: 'finish', label: 'finish', changes: null },
      );
      return { artifacts, checkpoint: refOf(checkpoint) };
    });
  }
}
