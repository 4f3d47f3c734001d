import type { Db } from '../../db/client.js';
import { WorkspaceAdmin } from './admin.js';
import { DEFAULT_WORKSPACE_CONFIG, type WorkspaceConfig } from './rules/config.js';
import { WorkspaceSessions } from './session.js';
import { WorkspaceStore } from './store.js';

/** The workspace feature's three faces over one store: lookups, a run's sessions, operators. */
export interface Workspaces {
  store: WorkspaceStore;
  sessions: WorkspaceSessions;
  admin: WorkspaceAdmin;
}

export function createWorkspaces(db: Db, config: WorkspaceConfig = DEFAULT_WORKSPACE_CONFIG): Workspaces {
  const store = new WorkspaceStore(db, config);
  return { store, sessions: new WorkspaceSessions(store, config), admin: new WorkspaceAdmin(store) };
}
