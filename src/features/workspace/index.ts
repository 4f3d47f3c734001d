/** The workspace feature as other modules see it. */
export { WorkspaceAdmin } from './admin.js';
export { workspaceCommands } from './cli.js';
export { workspaceConfigFrom } from './config-file.js';
export { WorkspaceReader } from './reader.js';
export { DEFAULT_WORKSPACE_CONFIG, type WorkspaceConfig } from './rules/config.js';
export { decodeText } from './rules/content.js';
export { WorkspaceSessions } from './session.js';
export { WorkspaceStore } from './store.js';
export { workspaceTools } from './tools/index.js';
export type * from './types.js';
export type { Workspaces } from './workspaces.js';
