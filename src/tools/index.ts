import { DEFAULT_WORKSPACE_CONFIG, type WorkspaceConfig } from '../domain/workspace/config.js';
import type { BuiltInTool } from '../runtime/executor.js';
import { chatTools } from './chat/index.js';
import { skillTools } from './skill/index.js';
import { workspaceTools } from './workspace/index.js';
import { worldInfoTools } from './worldinfo/index.js';

/** Every BUILT_IN tool family the server ships. Test-only tools are passed in by tests, never here. */
export function builtInTools(workspace: WorkspaceConfig = DEFAULT_WORKSPACE_CONFIG): BuiltInTool[] {
  return [...workspaceTools(workspace), ...chatTools(), ...skillTools(), ...worldInfoTools()];
}
