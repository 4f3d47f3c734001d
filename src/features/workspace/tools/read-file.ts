import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { defineArguments, integer } from '../../../calls/tool-kit.js';
import type { ReadResult } from '../types.js';
import type { Workspaces } from '../workspaces.js';
import { objectSchema, pathArgument, READ_ONLY, sessionOf, sha256Schema, spec } from './common.js';

/**
 * The most content one read returns. The runtime moves a text part over 16 KiB into a resource
 * and shows the model only a preview, so a read stays below that and pages instead.
 */
const MAX_READ_BYTES = 16_000;

const args = defineArguments({
  path: pathArgument('The file, relative to the workspace, e.g. "output/report.md".'),
  startLine: integer().min(1).optional().describe('First line to return (1-based).'),
  endLine: integer().min(1).optional().describe('Last line to return (inclusive).'),
  startChar: integer().min(0).optional().describe('First character to return (0-based).'),
  endChar: integer().min(1).optional().describe('Character to stop before.'),
  maxBytes: integer()
    .min(64)
    .max(MAX_READ_BYTES)
    .optional()
    .describe('Return at most this many bytes of content.'),
  maxTokens: integer().min(16).optional().describe('Return at most this many tokens of content.'),
});

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
      inputSchema: args.inputSchema,
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
          summary: {
            type: 'string',
            description: 'What was read, without the content: what a summarized context shows.',
          },
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
      const { path, maxBytes, maxTokens, ...range } = args.parse(invocation);
      const budgetTokens = [maxTokens, invocation.spec.budget.maxOutputTokens].filter(
        (n): n is number => typeof n === 'number',
      );
      const read = await workspaces.sessions.read(session, path, range, {
        maxBytes: Math.min(maxBytes ?? MAX_READ_BYTES, MAX_READ_BYTES),
        maxTokens: budgetTokens.length > 0 ? Math.min(...budgetTokens) : null,
      });
      return {
        content: [
          { type: 'text', text: header(read) },
          { type: 'text', text: read.content },
        ],
        structured: { ...read, summary: `Read ${header(read)}` },
      };
    },
  };
}
