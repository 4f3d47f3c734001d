import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { type WriteInput, writeModes } from '../types.js';
import type { Workspaces } from '../workspaces.js';
import {
  checkpointRefSchema,
  MUTATING,
  objectSchema,
  pathSchema,
  sessionOf,
  sha256Schema,
  spec,
} from './common.js';

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
      inputSchema: objectSchema(
        {
          path: pathSchema('The file, relative to the workspace, e.g. "output/report.md".'),
          content: { type: 'string', description: 'The text to write (UTF-8).' },
          mode: { enum: [...writeModes] },
          expectedHash: {
            ...sha256Schema,
            description: 'The sha256 you expect the file to have now; the write is refused if it differs.',
          },
        },
        ['path', 'content', 'mode'],
      ),
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
      const written = await workspaces.sessions.write(session, invocation.arguments as unknown as WriteInput);
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
