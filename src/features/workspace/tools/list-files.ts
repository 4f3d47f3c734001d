import { z } from 'zod';
import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { defineArguments, integer } from '../../../calls/tool-kit.js';
import type { Workspaces } from '../workspaces.js';
import { objectSchema, plural, READ_ONLY, sessionOf, sha256Schema, spec } from './common.js';

const DEFAULT_LIMIT = 200;

const args = defineArguments({
  prefix: z
    .string()
    .max(4096)
    .optional()
    .describe('A folder to list, relative to the workspace, e.g. "output". Omit for all files.'),
  limit: integer().min(1).max(1000).default(DEFAULT_LIMIT).describe('The most files to return.'),
});

const SUMMARY_PATHS = 5;

function listSummary(listed: { files: Array<{ path: string }>; total: number }, prefix: string | null) {
  const where = prefix ? ` in ${prefix}` : '';
  if (listed.total === 0) return `Listed the workspace${where}: no files.`;
  const first = listed.files.slice(0, SUMMARY_PATHS).map((f) => f.path);
  const more = listed.total > first.length ? ` and ${listed.total - first.length} more` : '';
  return `Listed ${plural(listed.total, 'file')}${where}: ${first.join(', ')}${more}.`;
}

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
      inputSchema: args.inputSchema,
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
          summary: {
            type: 'string',
            description: 'What was listed, in one sentence: what a summarized context shows.',
          },
        },
        ['roots', 'files', 'total', 'truncated'],
      ),
      annotations: READ_ONLY,
    }),
    async run(invocation) {
      const session = sessionOf(invocation);
      const { prefix, limit } = args.parse(invocation);
      const listed = await workspaces.sessions.list(session, prefix ?? null, limit);
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
        structured: { ...listed, summary: listSummary(listed, prefix ?? null) },
      };
    },
  };
}
