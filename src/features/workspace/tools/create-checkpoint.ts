import { z } from 'zod';
import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { defineArguments } from '../../../calls/tool-kit.js';
import type { Workspaces } from '../workspaces.js';
import { MUTATING, objectSchema, plural, sessionOf, spec } from './common.js';

const args = defineArguments({
  label: z.string().min(1).max(200).optional().describe('What this state is, in a few words.'),
});

export function createCheckpointTool(workspaces: Workspaces): BuiltInTool {
  return {
    spec: spec({
      name: 'workspace.create_checkpoint',
      title: 'Create a workspace checkpoint',
      description:
        'Saves the current state of the whole workspace as a numbered checkpoint with a label, so that it can ' +
        'be found and restored later. Every write and patch already creates a checkpoint; use this to mark a ' +
        'milestone, such as "draft complete". Changes no file.',
      inputSchema: args.inputSchema,
      outputSchema: objectSchema(
        {
          id: { type: 'string', format: 'uuid' },
          number: { type: 'integer', minimum: 1 },
          label: { type: ['string', 'null'] },
          fileCount: { type: 'integer', minimum: 0 },
          totalBytes: { type: 'integer', minimum: 0 },
        },
        ['id', 'number', 'label', 'fileCount', 'totalBytes'],
      ),
      annotations: MUTATING,
    }),
    async run(invocation) {
      const session = sessionOf(invocation);
      const label = args.parse(invocation).label ?? null;
      const checkpoint = await workspaces.sessions.createCheckpoint(session, label);
      const named = label === null ? '' : ` "${label}"`;
      return {
        content: [
          {
            type: 'text',
            text: `Checkpoint #${checkpoint.number}${named} saved (${plural(checkpoint.fileCount, 'file')}, ${checkpoint.totalBytes} bytes).`,
          },
        ],
        structured: {
          id: checkpoint.id,
          number: checkpoint.number,
          label: checkpoint.label,
          fileCount: checkpoint.fileCount,
          totalBytes: checkpoint.totalBytes,
        },
      };
    },
  };
}
