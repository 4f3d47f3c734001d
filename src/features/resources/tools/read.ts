import { z } from 'zod';
import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { defineArguments, integer, objectSchema, readOnlySpec, textParts } from '../../../calls/tool-kit.js';
import { RecoverableToolError } from '../../../core/tool-errors.js';
import { DEFAULT_PAGE_CHARS, MAX_PAGE_CHARS, pageOf } from '../rules/page.js';
import type { RunResources } from '../service.js';

const args = defineArguments({
  uri: z
    .string()
    .regex(/^resource:\/\/sha256\/[0-9a-f]{64}$/)
    .describe('The resource:// address a cut result named, e.g. "resource://sha256/3f…".'),
  offset: integer()
    .min(0)
    .optional()
    .describe('The character to start at (0-based; default 0); a previous page gives nextOffset.'),
  length: integer()
    .min(1)
    .max(MAX_PAGE_CHARS)
    .optional()
    .describe(`Characters to return (default ${DEFAULT_PAGE_CHARS}, at most ${MAX_PAGE_CHARS}).`),
});

const position = { type: 'integer', minimum: 0 };

const decoder = new TextDecoder('utf-8', { fatal: true });

function textOf(content: Buffer): string | null {
  try {
    return decoder.decode(content);
  } catch {
    return null;
  }
}

export function readTool(resources: RunResources): BuiltInTool {
  return {
    spec: readOnlySpec({
      name: 'resource.read',
      title: 'Read a stored resource',
      description:
        'Opens a resource:// address that a cut tool result pointed to ("the full output is resource://sha256/…") and ' +
        `returns a page of its text: ${DEFAULT_PAGE_CHARS} characters from offset 0 unless you ask otherwise, at most ` +
        `${MAX_PAGE_CHARS} per call. The result says which characters you got and gives nextOffset for the next page. ` +
        "Only this run's own resources can be opened. Read-only.",
      inputSchema: args.inputSchema,
      outputSchema: objectSchema(
        {
          uri: { type: 'string' },
          mimeType: { type: 'string' },
          bytes: position,
          start: position,
          end: position,
          totalChars: position,
          nextOffset: { type: ['integer', 'null'], minimum: 0, description: 'Null at the end.' },
          text: { type: 'string' },
          summary: {
            type: 'string',
            description: 'Which page was read, without its text: what a summarized context shows.',
          },
        },
        ['uri', 'mimeType', 'bytes', 'start', 'end', 'totalChars', 'nextOffset', 'text'],
      ),
    }),
    async run(invocation) {
      const { uri, offset = 0, length = DEFAULT_PAGE_CHARS } = args.parse(invocation);
      const resource = await resources.read(invocation.run.id, uri);
      if (!resource)
        throw new RecoverableToolError(
          'not_found',
          `No resource ${uri} belongs to this run. Only addresses that this run's own tool results gave can be opened; check the address.`,
          { uri },
        );
      const text = textOf(resource.content);
      if (text === null)
        throw new RecoverableToolError(
          'not_text',
          `${uri} is ${resource.size} bytes of ${resource.mimeType} that is not UTF-8 text, so it cannot be read as text.`,
          { uri, mimeType: resource.mimeType },
        );
      const page = pageOf(text, offset, length);
      if (!page)
        throw new RecoverableToolError(
          'invalid_range',
          `offset ${offset} is past the end of ${uri}, which has ${text.length} characters; start below ${text.length}.`,
          { uri, totalChars: text.length },
        );
      const next =
        page.nextOffset === null
          ? 'This is the end.'
          : `Continue with offset ${page.nextOffset} for the next page.`;
      const header = `${uri} (${resource.mimeType}, ${resource.size} bytes): characters ${page.start}-${page.end} of ${page.totalChars}. ${next}`;
      return {
        content: [{ type: 'text', text: header }, ...textParts(page.text)],
        structured: {
          uri,
          mimeType: resource.mimeType,
          bytes: resource.size,
          start: page.start,
          end: page.end,
          totalChars: page.totalChars,
          nextOffset: page.nextOffset,
          text: page.text,
          summary: `Read characters ${page.start}-${page.end} of ${page.totalChars} of ${uri}. ${next}`,
        },
      };
    },
  };
}
