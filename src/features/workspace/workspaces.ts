import type { WorkspaceAdmin } from './admin.js';
import type { WorkspaceReader } from './reader.js';
import type { WorkspaceSessions } from './session.js';
import type { WorkspaceStore } from './store.js';

/** The workspace feature's faces over one store: lookups, a run's sessions, operators, GraphQL readers. */
export interface Workspaces {
  store: WorkspaceStore;
  sessions: WorkspaceSessions;
  admin: WorkspaceAdmin;
  reader: WorkspaceReader;
}
