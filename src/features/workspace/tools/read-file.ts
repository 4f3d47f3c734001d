import type { BuiltInTool } from '../../../calls/tool-contract.js';
import type { Workspaces } from '../workspaces.js';
import type { ReadResult } from '../types.js';
import { objectSchema, pathSchema, READ_ONLY, sha256Schema, spec, sessionOf } from './common.js';

/**
 * The most content one read returns. The runtime moves a text part over 16 KiB into a resource
 * and shows the model only a preview, so a read stays below that and pages instead.
 */
const MAX_READ_BYTES = 16_000;

interface ReadArgs {
  path: string;
  startLine?: number;
  endLine?: number;
  startChar?: number;
  endChar?: number;
  maxBytes?: number;
  maxTokens?: number;
}

const position = { type: 'integer', minimum: 0 };

function header(read: ReadResult): string {
  const where =
    read.totalLines === 0
      ? 'empty file'
      : `lines ${read.startLine}-${read.endLine} of ${read.totalLines}, characters ${read.startChar}-${read.endChar} of ${read.totalChars}`;
  const next =
    read.next === null
      ? ''
      : 'startLine' in read.next
        ? ` Cut to fit the read budget: continue with startLine ${read.next.startLine}.`
        : ` Cut to fit the read budget: continue with startChar ${read.next.startChar}.`;
  return `${read.path} (${where}; ${read.size} bytes; sha256 ${read.sha256}).${next}`;
}

export function readFileTool(workspaces: Workspaces): BuiltInTool {
  return {
    spec: spec({
      name: 'workspace.read_file',
      title: 'Read a workspace file',
      description:
        'Reads a text file from your workspace and returns its content with its sha256 hash. Read a file before ' +
        'you replace it with workspace.write_file. Large files come in pages: give startLine/endLine (1-based, ' +
        'inclusive) or startChar/endChar (0-based, end exclusive), and when the result says it was cut, call ' +
        `again from the position it names. At most ${MAX_READ_BYTES} bytes come back per call; maxBytes and ` +
        'maxTokens lower that. Read-only.',
      inputSchema: objectSchema(
        {
          path: pathSchema('The file, relative to the workspace, e.g. "output/report.md".'),
          startLine: { type: 'integer', minimum: 1, description: 'First line to return (1-based).' },
          endLine: { type: 'integer', minimum: 1, description: 'Last line to return (inclusive).' },
          startChar: { type: 'integer', minimum: 0, description: 'First character to return (0-based).' },
          endChar: { type: 'integer', minimum: 1, description: 'Character to stop before.' },
          maxBytes: {
            type: 'integer',
            minimum: 64,
            maximum: MAX_READ_BYTES,
            description: 'Return at most this many bytes of content.',
          },
          maxTokens: {
            type: 'integer',
            minimum: 16,
            description: 'Return at most this many tokens of content.',
          },
        },
        ['path'],
      ),
      outputSchema: objectSchema(
        {
          path: { type: 'string' },
          sha256: { ...sha256Schema, description: 'Hash of the whole file, not of the returned part.' },
          size: { type: 'integer', minimum: 0, description: 'Bytes in the whole file.' },
          content: { type: 'string' },
          startLine: position,
          endLine: position,
          startChar: position,
          endChar: position,
          totalLines: position,
          totalChars: position,
          truncated: { type: 'boolean', description: 'True when the read budget cut the requested range.' },
          next: {
            description: 'Where to continue reading after a cut; null when nothing was cut.',
            oneOf: [
              { type: 'null' },
              objectSchema({ startLine: { type: 'integer', minimum: 1 } }, ['startLine']),
              objectSchema({ startChar: position }, ['startChar']),
            ],
          },
        },
        [
          'path',
          'sha256',
          'size',
          'content',
          'startLine',
          'endLine',
          'startChar',
          'endChar',
          'totalLines',
          'totalChars',
          'truncated',
          'next',
        ],
      ),
      annotations: READ_ONLY,
    }),
    async run(invocation) {
      const session = sessionOf(invocation);
      const args = invocation.arguments as unknown as ReadArgs;
      const budgetTokens = [args.maxTokens, invocation.spec.budget.maxOutputTokens].filter(
        (n): n is number => typeof n === 'number',
      );
      const read = await workspaces.sessions.read(
        session,
        args.path,
        {
          startLine: args.startLine,
          endLine: args.endLine,
          startChar: args.startChar,
          endChar: args.endChar,
        },
        {
          maxBytes: Math.min(args.maxBytes ?? MAX_READ_BYTES, MAX_READ_BYTES),
          maxTokens: budgetTokens.length > 0 ? Math.min(...budgetTokens) : null,
        },
      );
      return {
        content: [
          { type: 'text', text: header(read) },
          { type: 'text', text: read.content },
        ],
        structured: read,
      };
    },
  };
}
