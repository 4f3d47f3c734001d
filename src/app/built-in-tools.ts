import type { BuiltInTool } from '../calls/tool-contract.js';
import { chatTools } from '../features/chat/tools/index.js';
import { skillTools } from '../features/skill/tools/index.js';
import { DEFAULT_WORKSPACE_CONFIG, type WorkspaceConfig } from '../features/workspace/rules/config.js';
import { workspaceTools } from '../features/workspace/tools/index.js';
import { worldInfoTools } from '../features/worldinfo/tools/index.js';

/** Every BUILT_IN tool family the server ships. Test-only tools are passed in by tests, never here. */
export function builtInTools(workspace: WorkspaceConfig = DEFAULT_WORKSPACE_CONFIG): BuiltInTool[] {
  return [...workspaceTools(workspace), ...chatTools(), ...skillTools(), ...worldInfoTools()];
}
