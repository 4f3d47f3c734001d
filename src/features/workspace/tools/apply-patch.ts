import { z } from 'zod';
import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { defineArguments } from '../../../calls/tool-kit.js';
import type { ChangedFile } from '../types.js';
import type { Workspaces } from '../workspaces.js';
import {
  changeSchema,
  checkpointRefSchema,
  MUTATING,
  objectSchema,
  plural,
  sessionOf,
  spec,
} from './common.js';

const FORMAT = `*** Begin Patch
*** Add File: output/new.md
+first line of the new file
+second line
*** Update File: output/report.md
@@ ## Results
 a line before the change, unchanged
-the old line
+the new line
 a line after the change, unchanged
*** Update File: scratch/old-name.txt
*** Move to: scratch/new-name.txt
*** Delete File: scratch/notes.txt
*** End Patch`;

const args = defineArguments({
  patch: z.string().min(1).describe('The whole patch, from "*** Begin Patch" to "*** End Patch".'),
});

function describeChange(change: ChangedFile): string {
  switch (change.kind) {
    case 'add':
      return `added ${change.path}`;
    case 'update':
      return `updated ${change.path}`;
    case 'delete':
      return `deleted ${change.path}`;
    case 'move':
      return `moved ${change.from} to ${change.path}`;
  }
}

export function applyPatchTool(workspaces: Workspaces): BuiltInTool {
  return {
    spec: spec({
      name: 'workspace.apply_patch',
      title: 'Apply a patch to workspace files',
      description:
        'Adds, changes, renames and deletes files in writable folders of your workspace with one patch in this ' +
        `format:\n\n${FORMAT}\n\n` +
        'In an Update, each "@@" starts a hunk; text after "@@" is an optional line that must occur above the ' +
        'change, to say where it is. Hunk lines start with " " (context, unchanged), "-" (remove) or "+" (add); ' +
        'give about three context lines around each change and copy them exactly from the file. Add a line ' +
        '"*** End of File" after a hunk that must match the end of the file. Paths are relative to the ' +
        'workspace. The patch is atomic: if any part fails, no file changes, and the error names the file, ' +
        'the hunk and the lines that were not found, so re-read the file and send a corrected patch. Deleting, ' +
        'or adding over, an existing file needs a fresh read of it first. Every patch creates a checkpoint.',
      inputSchema: args.inputSchema,
      outputSchema: objectSchema(
        {
          changes: { type: 'array', items: changeSchema },
          checkpoint: checkpointRefSchema,
        },
        ['changes', 'checkpoint'],
      ),
      annotations: MUTATING,
    }),
    async run(invocation) {
      const session = sessionOf(invocation);
      const applied = await workspaces.sessions.patch(session, args.parse(invocation).patch);
      const summary = applied.changes.map(describeChange).join('; ');
      return {
        content: [
          {
            type: 'text',
            text: `Patch applied (${plural(applied.changes.length, 'change')}): ${summary}; checkpoint #${applied.checkpoint.number}.`,
          },
        ],
        structured: applied,
      };
    },
  };
}
