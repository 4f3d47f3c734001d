import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { DEFAULT_WORKSPACE_CONFIG, type WorkspaceConfig } from '../rules/config.js';
import { applyPatchTool } from './apply-patch.js';
import { createCheckpointTool } from './create-checkpoint.js';
import { finishTool } from './finish.js';
import { listFilesTool } from './list-files.js';
import { readFileTool } from './read-file.js';
import { restoreCheckpointTool } from './restore-checkpoint.js';
import { writeFileTool } from './write-file.js';

/** The workspace tools (seed §7.1), over one configuration of roots, profiles and finish requirements. */
export function workspaceTools(config: WorkspaceConfig = DEFAULT_WORKSPACE_CONFIG): BuiltInTool[] {
  return [
    listFilesTool(config),
    readFileTool(config),
    writeFileTool(config),
    applyPatchTool(config),
    createCheckpointTool(config),
    restoreCheckpointTool(config),
    finishTool(config),
  ];
}
