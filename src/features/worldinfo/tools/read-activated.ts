import { z } from 'zod';
import type { BuiltInTool } from '../../../calls/tool-contract.js';
import {
  defineArguments,
  integer,
  objectSchema,
  plural,
  readOnlySpec,
  textParts,
  uniqueArray,
} from '../../../calls/tool-kit.js';
import { RecoverableToolError } from '../../../core/tool-errors.js';
import { activationSources } from '../rules/activation.js';
import { positionName, worldInfoPositionNames } from '../rules/entries.js';
import type { ActivationRow, WorldInfoService } from '../service.js';
import type { ActivationEntrySnapshot } from '../tables.js';

export const DEFAULT_MAX_CHARS = 8_000;
const MAX_MAX_CHARS = 50_000;

const args = defineArguments({
  refs: uniqueArray(z.string().min(1).max(200))
    .min(1)
    .max(100)
    .optional()
    .describe('Refs from the index (wi:<lorebook>#<uid>) whose contents to read.'),
  maxChars: integer()
    .min(100)
    .max(MAX_MAX_CHARS)
    .optional()
    .describe(`Character budget for the contents (default ${DEFAULT_MAX_CHARS}).`),
});

interface IndexEntry {
  ref: string;
  name: string;
  lorebook: string;
  size: number;
  position: string;
  depth: number | null;
  constant: boolean;
  order: number;
}

interface ContentEntry {
  ref: string;
  name: string;
  text: string;
  size: number;
  truncated: boolean;
}

function indexEntry(entry: ActivationEntrySnapshot): IndexEntry {
  return {
    ref: entry.ref,
    name: entry.name,
    lorebook: entry.lorebookName,
    size: entry.size,
    position: positionName(entry.position),
    depth: positionName(entry.position) === 'at_depth' ? entry.depth : null,
    constant: entry.constant,
    order: entry.order,
  };
}

/** Whole entries while they fit; an entry bigger than the whole budget is cut, and what did not fit is named. */
function fill(entries: ActivationEntrySnapshot[], maxChars: number) {
  const contents: ContentEntry[] = [];
  const omitted: Array<{ ref: string; size: number }> = [];
  let left = maxChars;
  for (const entry of entries) {
    if (entry.size <= left) {
      contents.push({
        ref: entry.ref,
        name: entry.name,
        text: entry.content,
        size: entry.size,
        truncated: false,
      });
      left -= entry.size;
    } else if (contents.length === 0) {
      const text = [...entry.content].slice(0, left).join('');
      contents.push({ ref: entry.ref, name: entry.name, text, size: entry.size, truncated: true });
      left = 0;
    } else {
      omitted.push({ ref: entry.ref, size: entry.size });
    }
  }
  return { contents, omitted };
}

function activationInfo(activation: ActivationRow) {
  return {
    id: activation.id,
    source: activation.source,
    createdAt: activation.createdAt.toISOString(),
    runId: activation.runId,
    chatId: activation.chatId,
  };
}

function renderIndex(activation: ActivationRow, entries: IndexEntry[]): string {
  const lines = [
    `Latest world info activation (${activation.source === 'HOST' ? 'recorded by the app' : 'computed from the chat'}, ${activation.createdAt.toISOString()}): ${plural(entries.length, 'entry', 'entries')}.`,
  ];
  for (const entry of entries) {
    const where = entry.depth === null ? entry.position : `${entry.position} ${entry.depth}`;
    lines.push(
      `- ${entry.ref} "${entry.name}" (${entry.lorebook}; ${entry.size} chars; ${where}${entry.constant ? '; constant' : ''})`,
    );
  }
  if (entries.length > 0) lines.push('Read entries with worldinfo.read_activated and refs.');
  return lines.join('\n');
}

function renderContents(
  contents: ContentEntry[],
  omitted: Array<{ ref: string; size: number }>,
  maxChars: number,
): string {
  const lines: string[] = [];
  for (const entry of contents) {
    lines.push(`## ${entry.name} (${entry.ref})`);
    lines.push(entry.text);
    if (entry.truncated) {
      lines.push(
        `[cut: ${[...entry.text].length} of ${entry.size} characters shown; call again with this ref alone and maxChars up to ${MAX_MAX_CHARS}]`,
      );
    }
    lines.push('');
  }
  if (omitted.length > 0) {
    lines.push(
      `Not shown, over the ${maxChars}-character budget: ${omitted.map((o) => `${o.ref} (${o.size} chars)`).join(', ')}. Call again with those refs.`,
    );
  }
  return lines.join('\n').trimEnd();
}

export function readActivatedTool(worldInfo: WorldInfoService): BuiltInTool {
  return {
    spec: readOnlySpec({
      name: 'worldinfo.read_activated',
      title: 'Read the activated world info',
      description:
        "Reads the world info (lorebook) entries activated for this run's latest generation: the activation recorded " +
        "for this run, else the latest one of the run's chat. Without refs it returns the index: each entry's ref, " +
        'name, lorebook, size in characters, prompt position and whether it is constant. With refs it returns those ' +
        `entries' contents in prompt order, whole entries while they fit in maxChars (default ${DEFAULT_MAX_CHARS}); ` +
        'the result names the entries that did not fit. When nothing has been activated yet the call fails with a ' +
        'recoverable error that says so. Read-only.',
      inputSchema: args.inputSchema,
      outputSchema: objectSchema(
        {
          activation: objectSchema(
            {
              id: { type: 'string' },
              source: { enum: [...activationSources] },
              createdAt: { type: 'string' },
              runId: { type: ['string', 'null'] },
              chatId: { type: ['string', 'null'] },
            },
            ['id', 'source', 'createdAt', 'runId', 'chatId'],
          ),
          entries: {
            type: 'array',
            description: 'The index, in prompt order.',
            items: objectSchema(
              {
                ref: { type: 'string' },
                name: { type: 'string' },
                lorebook: { type: 'string' },
                size: { type: 'integer', minimum: 0, description: 'Characters of content.' },
                position: { enum: [...worldInfoPositionNames] },
                depth: { type: ['integer', 'null'], description: 'Insertion depth for at_depth entries.' },
                constant: { type: 'boolean' },
                order: { type: 'number' },
              },
              ['ref', 'name', 'lorebook', 'size', 'position', 'depth', 'constant', 'order'],
            ),
          },
          contents: {
            type: ['array', 'null'],
            description: 'Contents of the requested refs; null when no refs were given.',
            items: objectSchema(
              {
                ref: { type: 'string' },
                name: { type: 'string' },
                text: { type: 'string' },
                size: { type: 'integer', minimum: 0 },
                truncated: { type: 'boolean' },
              },
              ['ref', 'name', 'text', 'size', 'truncated'],
            ),
          },
          omitted: {
            type: 'array',
            description: 'Requested entries that did not fit the budget.',
            items: objectSchema({ ref: { type: 'string' }, size: { type: 'integer', minimum: 0 } }, [
              'ref',
              'size',
            ]),
          },
        },
        ['activation', 'entries', 'contents', 'omitted'],
      ),
    }),
    async run(invocation) {
      const { refs, maxChars = DEFAULT_MAX_CHARS } = args.parse(invocation);
      const activation = await worldInfo.latestActivation({
        runId: invocation.run.id,
        chatId: invocation.run.chatId,
      });
      if (!activation) {
        throw new RecoverableToolError(
          'no_activation',
          invocation.run.chatId
            ? `No world info has been activated yet for this run or its chat (${invocation.run.chatId}). Continue without world info.`
            : 'No world info has been activated yet for this run (and the run has no chat). Continue without world info.',
        );
      }
      const entries = activation.entries.map(indexEntry);
      const base = { activation: activationInfo(activation), entries };
      if (!refs) {
        return {
          content: textParts(renderIndex(activation, entries)),
          structured: { ...base, contents: null, omitted: [] },
        };
      }
      const unknown = refs.filter((ref) => !activation.entries.some((entry) => entry.ref === ref));
      if (unknown.length > 0) {
        throw new RecoverableToolError(
          'unknown_ref',
          `Not in the latest activation: ${unknown.join(', ')}. Call worldinfo.read_activated without refs for the index.`,
        );
      }
      const { contents, omitted } = fill(
        activation.entries.filter((entry) => refs.includes(entry.ref)),
        maxChars,
      );
      return {
        content: textParts(renderContents(contents, omitted, maxChars)),
        structured: { ...base, contents, omitted },
      };
    },
  };
}
