import type { BuiltInTool } from '../../../calls/tool-contract.js';
import type { Workspaces } from '../workspaces.js';
import { objectSchema, plural, READ_ONLY, sha256Schema, spec, sessionOf } from './common.js';

const DEFAULT_LIMIT = 200;

export function listFilesTool(workspaces: Workspaces): BuiltInTool {
  return {
    spec: spec({
      name: 'workspace.list_files',
      title: 'List workspace files',
      description:
        'Lists the files in your workspace, with their sizes and content hashes, and the folders you may see ' +
        'and write. Give `prefix` (a folder such as "output" or "output/chapters") to list only that folder; ' +
        'omit it to list everything you can see. Paths are relative to the workspace: never start them with ' +
        '"/" or use "..". Read-only.',
      inputSchema: objectSchema({
        prefix: {
          type: 'string',
          maxLength: 4096,
          description: 'A folder to list, relative to the workspace, e.g. "output". Omit for all files.',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: 1000,
          default: DEFAULT_LIMIT,
          description: 'The most files to return.',
        },
      }),
      outputSchema: objectSchema(
        {
          roots: {
            type: 'array',
            description: 'The folders you can see; `writable` says whether you may write there.',
            items: objectSchema({ path: { type: 'string' }, writable: { type: 'boolean' } }, [
              'path',
              'writable',
            ]),
          },
          files: {
            type: 'array',
            items: objectSchema(
              { path: { type: 'string' }, size: { type: 'integer', minimum: 0 }, sha256: sha256Schema },
              ['path', 'size', 'sha256'],
            ),
          },
          total: {
            type: 'integer',
            minimum: 0,
            description: 'How many files matched, including any cut by `limit`.',
          },
          truncated: { type: 'boolean' },
        },
        ['roots', 'files', 'total', 'truncated'],
      ),
      annotations: READ_ONLY,
    }),
    async run(invocation) {
      const session = sessionOf(invocation);
      const args = invocation.arguments as { prefix?: string; limit?: number };
      const listed = await workspaces.sessions.list(session, args.prefix ?? null, args.limit ?? DEFAULT_LIMIT);
      const roots = listed.roots
        .map((r) => `${r.path}/ (${r.writable ? 'writable' : 'read-only'})`)
        .join(', ');
      const lines = listed.files.map((f) => `${f.path}  ${f.size} bytes`);
      const more = listed.truncated
        ? [`… and ${listed.total - listed.files.length} more; raise limit or list a folder`]
        : [];
      return {
        content: [
          {
            type: 'text',
            text: [`Folders: ${roots || 'none'}`, `${plural(listed.total, 'file')}:`, ...lines, ...more].join(
              '\n',
            ),
          },
        ],
        structured: listed,
      };
    },
  };
}
