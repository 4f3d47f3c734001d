import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Invocation } from '../../calls/tool-contract.js';
import { badInput, notFound } from '../../core/errors.js';
import type { NewJournalEvent } from '../../core/journal-event.js';
import { RecoverableToolError, SystemFailure } from '../../core/tool-errors.js';
import type { Db } from '../../db/client.js';
import {
  type CheckpointReason,
  workspaceBlobs,
  workspaceCheckpointFiles,
  workspaceCheckpoints,
  workspaceFiles,
  workspaceReads,
  workspaces,
} from '../../db/schema.js';
import type { Executor, Tx } from '../../db/tx.js';
import { appendEvents } from '../../journal/append.js';
import {
  accessFor,
  DEFAULT_WORKSPACE_CONFIG,
  requiredArtifactsFor,
  type WorkspaceConfig,
} from './rules/config.js';
import { decodeText, encodeText, MAX_FILE_BYTES, sha256Hex } from './rules/content.js';
import { compareManifests, type FileDiff, unifiedFileDiff } from './rules/diff.js';
import { checkManifest, manifestMessage } from './rules/manifest.js';
import { applyParsedPatch } from './rules/patch/apply.js';
import { parsePatch, patchPaths } from './rules/patch/parse.js';
import type { FileChange, ParsedPatch, PatchError } from './rules/patch/types.js';
import { checkWorkspacePath, isPathUnder } from './rules/paths.js';
import { type ReadBudget, type ReadRange, type ReadSelection, selectRange } from './rules/read-range.js';
import {
  canSee,
  canSeeFolder,
  canWrite,
  describeRoots,
  notVisibleMessage,
  notWritableMessage,
  type RootAccess,
  type WorkspaceRoot,
} from './rules/roots.js';
import { ancestorsOf, PathIndex } from './rules/tree.js';

export type WorkspaceRow = typeof workspaces.$inferSelect;
export type WorkspaceFileRow = typeof workspaceFiles.$inferSelect;
export type CheckpointRow = typeof workspaceCheckpoints.$inferSelect;
export type ManifestEntry = Pick<WorkspaceFileRow, 'path' | 'sha256' | 'size'>;

export type WorkspaceJournal = (
  events: Omit<NewJournalEvent, 'runId' | 'callId' | 'actor'>[],
) => Promise<void>;
export type WorkspaceTransaction = <T>(work: (tx: Tx, journal: WorkspaceJournal) => Promise<T>) => Promise<T>;

/**
 * Who works in which workspace, and the transaction their changes commit in: a tool call's own
 * (its journal events carry the run and call) or, for operators, one the service opens itself.
 */
export interface WorkspaceSession {
  workspaceId: string;
  profileId: string | null;
  runId: string | null;
  callId: string | null;
  actor: string;
  transaction: WorkspaceTransaction;
}

export function sessionOf(invocation: Invocation): WorkspaceSession {
  const workspaceId = invocation.run.workspaceId;
  if (!workspaceId) {
    throw new RecoverableToolError(
      'no_workspace',
      'This run has no workspace, so workspace tools cannot be used in it. Continue without them.',
    );
  }
  return {
    workspaceId,
    profileId: invocation.run.profileId,
    runId: invocation.run.id,
    callId: invocation.callId,
    actor: `tool:${invocation.spec.name}`,
    transaction: (work) => invocation.transaction(work),
  };
}

export interface CheckpointRef {
  id: string;
  number: number;
}

export interface ChangedFile {
  path: string;
  kind: FileChange['kind'];
  from?: string;
  /** Absent for a deleted file. */
  sha256?: string;
  size?: number;
}

export interface WriteInput {
  path: string;
  content: string;
  mode: 'create' | 'replace' | 'append';
  expectedHash?: string | undefined;
}

export interface WriteResult {
  path: string;
  sha256: string;
  size: number;
  created: boolean;
  checkpoint: CheckpointRef;
}

export interface ListResult {
  roots: WorkspaceRoot[];
  files: ManifestEntry[];
  total: number;
  truncated: boolean;
}

export interface ReadResult extends ReadSelection {
  path: string;
  sha256: string;
  size: number;
}

export interface RestoreResult {
  restored: CheckpointRef;
  /** The checkpoint that was current before, so callers can show what the restore undid. */
  previous: CheckpointRef;
  changes: FileDiff[];
  checkpoint: CheckpointRef;
}

export interface FinishResult {
  artifacts: ManifestEntry[];
  checkpoint: CheckpointRef;
}

export interface WorkspaceDiff {
  from: CheckpointRow | null;
  to: CheckpointRow | null;
  files: FileDiff[];
  unified: string;
}

export interface ImportResult {
  imported: ChangedFile[];
  skipped: Array<{ path: string; reason: string }>;
  checkpoint: CheckpointRef | null;
}

/** Journal payloads stay far below the 8 KiB limit; a long change list is cut and counted. */
const CHANGES_PAYLOAD_BYTES = 4096;
const INSERT_CHUNK = 500;

const refOf = (row: CheckpointRow): CheckpointRef => ({ id: row.id, number: row.number });

const isUuid = (value: string) => z.uuid().safeParse(value).success;

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
 * Files, checkpoints and diffs of workspaces (issue 4). Tool operations take a session and apply
 * the roots its profile may see and write; lookups for operators (GraphQL, CLI) see everything.
 * Every change commits its files, an automatic checkpoint and its journal events together, under
 * the workspace's row lock, which orders concurrent writers and numbers checkpoints without gaps.
 */
export class WorkspaceService {
  constructor(
    private readonly db: Db,
    private readonly config: WorkspaceConfig = DEFAULT_WORKSPACE_CONFIG,
  ) {}

  /** A session outside any run (imports): its own transaction; journal events name `actor`. */
  operatorSession(workspaceId: string, actor: string): WorkspaceSession {
    return {
      workspaceId,
      profileId: null,
      runId: null,
      callId: null,
      actor,
      transaction: (work) =>
        this.db.transaction((tx) =>
          work(tx, async (events) => {
            await appendEvents(
              tx,
              events.map((event) => ({ ...event, runId: null, callId: null, actor })),
            );
          }),
        ),
    };
  }

  // Lookups for operators: every file, no roots.

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
   * What changed between two checkpoints of a workspace: `from` null is the empty workspace, `to`
   * null its current files.
   */
  async diff(workspaceId: string, fromRef: string | null, toRef: string | null): Promise<WorkspaceDiff> {
    const from = fromRef ? await this.requireCheckpoint(workspaceId, fromRef) : null;
    const to = toRef ? await this.requireCheckpoint(workspaceId, toRef) : null;
    const before = from ? await this.manifest(from.id) : [];
    const after = to ? await this.manifest(to.id) : await this.files(workspaceId);
    const files = compareManifests(
      new Map(before.map((e) => [e.path, e.sha256])),
      new Map(after.map((e) => [e.path, e.sha256])),
    );
    const hashes = files.flatMap((f) => [f.oldSha256, f.newSha256]).filter((h): h is string => h !== null);
    const blobs = await this.blobs(this.db, hashes);
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
    if (!(await this.get(workspaceId))) throw notFound(`no workspace ${workspaceId}`);
    const checkpoint = checkpointRef ? await this.requireCheckpoint(workspaceId, checkpointRef) : null;
    const entries = checkpoint ? await this.manifest(checkpoint.id) : await this.files(workspaceId);
    const blobs = await this.blobs(
      this.db,
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
      const workspace = await this.lock(tx, session.workspaceId);
      const existing = new PathIndex(await this.paths(tx, workspace.id));
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
      const before = await this.entries(
        tx,
        workspace.id,
        accepted.map((f) => f.path),
      );
      const imported = await this.putContents(tx, workspace.id, accepted, before);
      const checkpoint = await this.commit(tx, journal, session, workspace, 'import', null, imported);
      return { imported, skipped, checkpoint: refOf(checkpoint) };
    });
  }

  // Tool operations: the session's roots apply.

  async access(session: WorkspaceSession): Promise<RootAccess> {
    const [row] = await this.db
      .select({ roots: workspaces.roots })
      .from(workspaces)
      .where(eq(workspaces.id, session.workspaceId))
      .limit(1);
    return accessFor(this.config, row?.roots ?? this.config.defaultRoots, session.profileId);
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
    const visible = (await this.files(session.workspaceId, folder)).filter((f) => canSee(access, f.path));
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
    const [entry] = await this.entries(this.db, session.workspaceId, [path]);
    if (!entry) throw await this.missing(this.db, session.workspaceId, path);
    const content = (await this.blobs(this.db, [entry.sha256])).get(entry.sha256)!;
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
    await this.recordReads(this.db, session, [entry]);
    return { path, sha256: entry.sha256, size: entry.size, ...outcome.selection };
  }

  async write(session: WorkspaceSession, input: WriteInput): Promise<WriteResult> {
    const path = requirePath(input.path);
    return session.transaction(async (tx, journal) => {
      const workspace = await this.lock(tx, session.workspaceId);
      const access = accessFor(this.config, workspace.roots, session.profileId);
      if (!canWrite(access, path)) {
        throw new RecoverableToolError('path_not_writable', notWritableMessage(path, access), { path });
      }
      const [current] = await this.entries(tx, workspace.id, [path]);
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
        await this.requireFresh(tx, session, current, input.expectedHash);
      }
      if (!current) {
        const conflict = new PathIndex(await this.neighbours(tx, workspace.id, path)).conflict(path);
        if (conflict) throw new RecoverableToolError(conflict.code, conflict.message, { path });
      }
      const previous =
        current && input.mode === 'append'
          ? (await this.blobs(tx, [current.sha256])).get(current.sha256)!
          : null;
      const content = previous
        ? Buffer.concat([previous, encodeText(input.content)])
        : encodeText(input.content);
      const changes = await this.putContents(tx, workspace.id, [{ path, content }], current ? [current] : []);
      const checkpoint = await this.commit(tx, journal, session, workspace, 'write', null, changes);
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
      const workspace = await this.lock(tx, session.workspaceId);
      const access = accessFor(this.config, workspace.roots, session.profileId);
      const blocked = touched.find((path) => !canWrite(access, path));
      if (blocked) {
        throw new RecoverableToolError(
          'path_not_writable',
          `${notWritableMessage(blocked, access)}. The whole patch was rejected, so no file was changed.`,
          { path: blocked },
        );
      }
      const before = await this.entries(tx, workspace.id, touched);
      for (const entry of before) {
        if (discardsContent(parsed.patch, entry.path)) await this.requireFresh(tx, session, entry);
      }
      const texts = await this.texts(tx, before);
      const snapshot = new Map<string, string>();
      // Only the touched files need their content; the others matter to the engine as names.
      for (const path of await this.paths(tx, workspace.id)) snapshot.set(path, texts.get(path) ?? '');
      const applied = applyParsedPatch(snapshot, parsed.patch);
      if (!applied.ok) throw patchError(applied.error);
      const written = touched.flatMap((path) => {
        const after = applied.files.get(path);
        return after === undefined || after === texts.get(path) ? [] : [{ path, content: encodeText(after) }];
      });
      const removed = before.filter((entry) => !applied.files.has(entry.path)).map((entry) => entry.path);
      const stored = await this.putContents(tx, workspace.id, written, before);
      await this.removeFiles(tx, workspace.id, removed);
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
      const checkpoint = await this.commit(tx, journal, session, workspace, 'patch', null, changes);
      return { changes, checkpoint: refOf(checkpoint) };
    });
  }

  async createCheckpoint(session: WorkspaceSession, label: string | null): Promise<CheckpointRow> {
    return session.transaction(async (tx, journal) => {
      const workspace = await this.lock(tx, session.workspaceId);
      return this.commit(tx, journal, session, workspace, 'manual', label, null);
    });
  }

  async restore(session: WorkspaceSession, number: number): Promise<RestoreResult> {
    return session.transaction(async (tx, journal) => {
      const workspace = await this.lock(tx, session.workspaceId);
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
      const wanted = await this.manifestOf(tx, target.id);
      const current = await this.currentOf(tx, workspace.id);
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
      await this.putEntries(tx, workspace.id, put);
      await this.removeFiles(
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
      const checkpoint = await this.commit(
        tx,
        journal,
        session,
        workspace,
        'restore',
        `restored #${number}`,
        changes,
        {
          restoredFrom: target.id,
        },
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
      const workspace = await this.lock(tx, session.workspaceId);
      const access = accessFor(this.config, workspace.roots, session.profileId);
      const hidden = declared.find((path) =>
        path.endsWith('/') ? !canSeeFolder(access, path.slice(0, -1)) : !canSee(access, path),
      );
      if (hidden) {
        throw new RecoverableToolError('path_not_visible', notVisibleMessage(hidden, access), {
          path: hidden,
        });
      }
      const files = await this.currentOf(tx, workspace.id);
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
      const checkpoint = await this.commit(tx, journal, session, workspace, 'finish', 'finish', null);
      return { artifacts, checkpoint: refOf(checkpoint) };
    });
  }

  // Storage.

  /** Creates the workspace on first use with the default roots, then holds its row lock. */
  private async lock(tx: Tx, workspaceId: string): Promise<WorkspaceRow> {
    await tx
      .insert(workspaces)
      .values({ id: workspaceId, roots: [...this.config.defaultRoots] })
      .onConflictDoNothing();
    const [row] = await tx.select().from(workspaces).where(eq(workspaces.id, workspaceId)).for('update');
    return row!;
  }

  private manifestOf(executor: Executor, checkpointId: string): Promise<ManifestEntry[]> {
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

  private currentOf(executor: Executor, workspaceId: string): Promise<ManifestEntry[]> {
    return executor
      .select({ path: workspaceFiles.path, sha256: workspaceFiles.sha256, size: workspaceFiles.size })
      .from(workspaceFiles)
      .where(eq(workspaceFiles.workspaceId, workspaceId))
      .orderBy(asc(workspaceFiles.path));
  }

  private async paths(executor: Executor, workspaceId: string): Promise<Set<string>> {
    const rows = await executor
      .select({ path: workspaceFiles.path })
      .from(workspaceFiles)
      .where(eq(workspaceFiles.workspaceId, workspaceId));
    return new Set(rows.map((r) => r.path));
  }

  private async entries(
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
  private async neighbours(executor: Executor, workspaceId: string, path: string): Promise<string[]> {
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

  private async missing(
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

  private async blobs(executor: Executor, hashes: readonly string[]): Promise<Map<string, Buffer>> {
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

  private async texts(executor: Executor, entries: readonly ManifestEntry[]): Promise<Map<string, string>> {
    const blobs = await this.blobs(
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
  private async requireFresh(
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

  private async recordReads(
    executor: Executor,
    session: WorkspaceSession,
    entries: readonly ManifestEntry[],
  ) {
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
  private async putContents(
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
  private async putEntries(tx: Tx, workspaceId: string, entries: readonly ManifestEntry[]): Promise<void> {
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

  private async removeFiles(tx: Tx, workspaceId: string, paths: readonly string[]): Promise<void> {
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
  private async commit(
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

/** Operations that throw away a file's content without matching it: they need a fresh read. */
function discardsContent(patch: ParsedPatch, path: string): boolean {
  return patch.ops.some(
    (op) =>
      ((op.type === 'add' || op.type === 'delete') && op.path === path) ||
      (op.type === 'update' && op.moveTo === path && op.path !== path),
  );
}
