import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { defineArguments, integer } from '../../../calls/tool-kit.js';
import type { ContentPart } from '../../../core/tool-result.js';
import { fileChangeKinds } from '../rules/diff.js';
import type { Workspaces } from '../workspaces.js';
import { checkpointRefSchema, objectSchema, plural, sessionOf, sha256Schema, spec } from './common.js';

const args = defineArguments({
  checkpoint: integer().min(1).describe('The number of the checkpoint to restore.'),
});

export function restoreCheckpointTool(workspaces: Workspaces): BuiltInTool {
  return {
    spec: spec({
      name: 'workspace.restore_checkpoint',
      title: 'Restore a workspace checkpoint',
      description:
        'Puts every file of the workspace back the way it was at a checkpoint (its number, as shown by writes, ' +
        'patches and workspace.create_checkpoint): files changed since come back, files added since are ' +
        'removed. The restore itself becomes a new checkpoint, so it can be undone the same way. Needs approval. ' +
        'Afterwards, read files again before replacing them.',
      inputSchema: args.inputSchema,
      outputSchema: objectSchema(
        {
          restored: checkpointRefSchema,
          checkpoint: { ...checkpointRefSchema, description: 'The new checkpoint made by the restore.' },
          changes: {
            type: 'array',
            items: objectSchema(
              {
                path: { type: 'string' },
                change: { enum: [...fileChangeKinds] },
                oldSha256: { oneOf: [sha256Schema, { type: 'null' }] },
                newSha256: { oneOf: [sha256Schema, { type: 'null' }] },
              },
              ['path', 'change', 'oldSha256', 'newSha256'],
            ),
          },
        },
        ['restored', 'checkpoint', 'changes'],
      ),
      annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false, cost: 'LOW' },
      permission: 'APPROVAL_REQUIRED',
    }),
    async run(invocation) {
      const session = sessionOf(invocation);
      const result = await workspaces.sessions.restore(session, args.parse(invocation).checkpoint);
      const content: ContentPart[] = [
        {
          type: 'text',
          text: `Restored checkpoint #${result.restored.number} (${plural(result.changes.length, 'file')} changed); now at checkpoint #${result.checkpoint.number}.`,
        },
      ];
      if (result.changes.length > 0) {
        // What the restore undid, for people reviewing the run; both ends are immutable checkpoints.
        const diff = await workspaces.admin.diff(
          session.workspaceId,
          result.previous.id,
          result.checkpoint.id,
        );
        const stored = await invocation.storeResource(Buffer.from(diff.unified, 'utf8'), 'text/x-diff');
        content.push({
          type: 'diff_ref',
          uri: stored.uri,
          fromRef: result.previous.id,
          toRef: result.checkpoint.id,
        });
      }
      return {
        content,
        structured: { restored: result.restored, checkpoint: result.checkpoint, changes: result.changes },
      };
    },
  };
}
