import type { WorkspaceAdmin } from './admin.js';
import type { WorkspaceSessions } from './session.js';
import type { WorkspaceStore } from './store.js';

/** The workspace feature's three faces over one store: lookups, a run's sessions, operators. */
export interface Workspaces {
  store: WorkspaceStore;
  sessions: WorkspaceSessions;
  admin: WorkspaceAdmin;
}
