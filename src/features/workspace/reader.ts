import { readAccess } from '../../calls/index.js';
import type { Principal } from '../../core/auth.js';
import type { WorkspaceAdmin } from './admin.js';
import { accessFor, DEFAULT_WORKSPACE_CONFIG, type WorkspaceConfig } from './rules/config.js';
import { checkWorkspacePath } from './rules/paths.js';
import { canSee, describeRoots, type RootAccess, type WorkspaceRoot } from './rules/roots.js';
import type { WorkspaceStore } from './store.js';
import type { CheckpointRow, ManifestEntry, WorkspaceDiff, WorkspaceFileRow, WorkspaceRow } from './types.js';

/**
 * A workspace as one reader may see it: `access` null for readers who see every file (people and
 * admins), else the folders the reader's runs see.
 */
export type WorkspaceView = WorkspaceRow & { access: RootAccess | null };
export type CheckpointView = CheckpointRow & { access: RootAccess | null };

const sees = (access: RootAccess | null, path: string) => access === null || canSee(access, path);

/** What any one of the runs sees: an agent reads through each run that names the workspace. */
function union(accesses: readonly RootAccess[]): RootAccess {
  return {
    visible: [...new Set(accesses.flatMap((a) => a.visible))].sort(),
    writable: [...new Set(accesses.flatMap((a) => a.writable))].sort(),
  };
}

/**
 * Workspaces read through GraphQL (issue 12): a reader gets a workspace only when it may read it
 * (resource-access.ts: admins and hosts all, people their users', agents their user's named by
 * their runs) and an agent only the files its runs' profiles see. Anything else reads as absent.
 */
export class WorkspaceReader {
  constructor(
    private readonly store: WorkspaceStore,
    private readonly admin: WorkspaceAdmin,
    private readonly config: WorkspaceConfig = DEFAULT_WORKSPACE_CONFIG,
  ) {}

  async get(principal: Principal, workspaceId: string): Promise<WorkspaceView | null> {
    const row = await this.store.get(workspaceId);
    if (!row) return null;
    const grant = await readAccess(this.store.db, principal, 'workspace', row);
    if (!grant) return null;
    const access =
      grant.profiles === null ? null : union(grant.profiles.map((p) => accessFor(this.config, row.roots, p)));
    return { ...row, access };
  }

  roots(view: WorkspaceView): WorkspaceRoot[] {
    return view.access ? describeRoots(view.access) : view.roots;
  }

  async files(view: WorkspaceView, folder: string | null): Promise<WorkspaceFileRow[]> {
    return (await this.store.files(view.id, folder)).filter((f) => sees(view.access, f.path));
  }

  async file(view: WorkspaceView, rawPath: string, checkpointRef: string | null) {
    const checked = checkWorkspacePath(rawPath);
    // An ill-formed path is the store's BAD_USER_INPUT; a hidden one reads as absent.
    if (checked.ok && !sees(view.access, checked.path)) return null;
    return this.store.fileContent(view.id, rawPath, checkpointRef);
  }

  async checkpoints(view: WorkspaceView): Promise<CheckpointView[]> {
    return (await this.store.checkpoints(view.id)).map((c) => ({ ...c, access: view.access }));
  }

  async checkpoint(view: WorkspaceView, ref: string): Promise<CheckpointView | null> {
    const row = await this.store.checkpoint(view.id, ref);
    return row ? { ...row, access: view.access } : null;
  }

  async manifest(checkpoint: CheckpointView): Promise<ManifestEntry[]> {
    return (await this.store.manifest(checkpoint.id)).filter((e) => sees(checkpoint.access, e.path));
  }

  async diff(view: WorkspaceView, fromRef: string | null, toRef: string | null) {
    const diff: WorkspaceDiff = await this.admin.diff(view.id, fromRef, toRef, (path) =>
      sees(view.access, path),
    );
    const withAccess = (c: CheckpointRow | null) => (c ? { ...c, access: view.access } : null);
    return { ...diff, from: withAccess(diff.from), to: withAccess(diff.to) };
  }
}
