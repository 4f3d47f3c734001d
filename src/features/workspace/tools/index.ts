import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { inDatabase } from '../../../calls/tool-kit.js';
import type { Workspaces } from '../workspaces.js';
import { applyPatchTool } from './apply-patch.js';
import { createCheckpointTool } from './create-checkpoint.js';
import { finishTool } from './finish.js';
import { listFilesTool } from './list-files.js';
import { readFileTool } from './read-file.js';
import { restoreCheckpointTool } from './restore-checkpoint.js';
import { writeFileTool } from './write-file.js';

/** The workspace tools (seed §7.1), over the workspaces the composition root built. */
export function workspaceTools(workspaces: Workspaces): BuiltInTool[] {
  return inDatabase([
    listFilesTool(workspaces),
    readFileTool(workspaces),
    writeFileTool(workspaces),
    applyPatchTool(workspaces),
    createCheckpointTool(workspaces),
    restoreCheckpointTool(workspaces),
    finishTool(workspaces),
  ]);
}
