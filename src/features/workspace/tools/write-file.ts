import { z } from 'zod';
import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { defineArguments } from '../../../calls/tool-kit.js';
import { writeModes } from '../types.js';
import type { Workspaces } from '../workspaces.js';
import {
  checkpointRefSchema,
  MUTATING,
  objectSchema,
  pathArgument,
  sessionOf,
  sha256Argument,
  sha256Schema,
  spec,
} from './common.js';

const args = defineArguments({
  path: pathArgument('The file, relative to the workspace, e.g. "output/report.md".'),
  content: z.string().describe('The text to write (UTF-8).'),
  mode: z.enum(writeModes),
  expectedHash: sha256Argument
    .optional()
    .describe('The sha256 you expect the file to have now; the write is refused if it differs.'),
});

export function writeFileTool(workspaces: Workspaces): BuiltInTool {
  return {
    spec: spec({
      name: 'workspace.write_file',
      title: 'Write a workspace file',
      description:
        'Writes a whole text file in a writable folder of your workspace (see workspace.list_files). ' +
        'mode "create" makes a new file and fails if it exists; "replace" overwrites an existing file and ' +
        'fails if it does not; "append" adds to the end, creating the file if needed. Before "replace" you must ' +
        'have read the file with workspace.read_file (or pass its sha256 as expectedHash), and it must not have ' +
        'changed since: otherwise the write is refused as stale, and you should read it again. To change part ' +
        'of a file, prefer workspace.apply_patch. Every write creates a checkpoint you can restore.',
      inputSchema: args.inputSchema,
      outputSchema: objectSchema(
        {
          path: { type: 'string' },
          sha256: sha256Schema,
          size: { type: 'integer', minimum: 0 },
          created: { type: 'boolean', description: 'True when the file did not exist before.' },
          checkpoint: checkpointRefSchema,
        },
        ['path', 'sha256', 'size', 'created', 'checkpoint'],
      ),
      annotations: MUTATING,
    }),
    async run(invocation) {
      const session = sessionOf(invocation);
      const written = await workspaces.sessions.write(session, args.parse(invocation));
      const verb = written.created ? 'Created' : 'Wrote';
      return {
        content: [
          {
            type: 'text',
            text: `${verb} ${written.path} (${written.size} bytes, sha256 ${written.sha256}); checkpoint #${written.checkpoint.number}.`,
          },
        ],
        structured: written,
      };
    },
  };
}
