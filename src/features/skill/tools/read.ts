import { z } from 'zod';
import type { BuiltInTool } from '../../../calls/tool-contract.js';
import {
  asRecoverable,
  defineArguments,
  integer,
  objectSchema,
  readOnlySpec,
  textParts,
} from '../../../calls/tool-kit.js';
import type { SkillReadBudget, SkillReadResult } from '../inputs.js';
import type { SkillService } from '../service.js';

const position = { type: 'integer', minimum: 0 };

function header(read: SkillReadResult): string {
  const where = read.section ? `section "${read.section.join(' > ')}", ` : '';
  const next = read.truncated
    ? ` Cut to fit maxChars: continue with ${read.nextLine !== null ? `fromLine ${read.nextLine}` : `fromChar ${read.nextChar}`}.`
    : '';
  return (
    `${read.ref}: ${where}lines ${read.startLine}-${read.endLine} of ${read.totalLines}, characters ${read.start}-${read.end} of ${read.totalChars}.${next} ` +
    `Skill reading budget: ${read.budget.leftThisRun} of ${read.budget.perRun} characters left in this run.`
  );
}

/** The per-call limit is the family's, so the schema's wording is built with the tool. */
const readArguments = (limits: SkillReadBudget) =>
  defineArguments({
    name: z.string().min(1).max(64).describe('The skill name from skill.list.'),
    path: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .describe('A file of the skill, e.g. "reference/setup.md" (default "SKILL.md").'),
    section: z.string().min(1).max(500).optional().describe('A heading to read, with its subsections.'),
    fromLine: integer().min(1).optional(),
    toLine: integer().min(1).optional(),
    fromChar: integer().min(0).optional(),
    toChar: integer().min(0).optional(),
    maxChars: integer()
      .min(1)
      .optional()
      .describe(`Return at most this many characters (at most ${limits.perCall}, the per-call limit).`),
  });

export function readTool(skills: SkillService, limits: SkillReadBudget): BuiltInTool {
  const args = readArguments(limits);
  return {
    spec: readOnlySpec({
      name: 'skill.read',
      title: 'Read a skill file',
      description:
        'Reads a file of a skill from skill.list: its SKILL.md by default, or another of its files by path. Read the ' +
        'whole file, one section (a Markdown heading, e.g. "Testing" or "Setup > Install"), or a range of lines ' +
        `(fromLine/toLine, 1-based, inclusive) or characters (fromChar/toChar, 0-based, end exclusive). One call returns ` +
        `at most ${limits.perCall} characters (maxChars lowers that) and a run may read ${limits.perRun} characters of ` +
        'skills in all; a longer range is cut and the result says where to continue. Asking for more than is left is a ' +
        'recoverable error that says how much is left. Read-only.',
      inputSchema: args.inputSchema,
      outputSchema: objectSchema(
        {
          ref: { type: 'string', description: 'skill:<name>/<path>#L<first>-L<last>' },
          name: { type: 'string' },
          path: { type: 'string' },
          section: {
            type: ['array', 'null'],
            items: { type: 'string' },
            description: 'Heading path of the section read.',
          },
          text: { type: 'string' },
          start: position,
          end: position,
          startLine: position,
          endLine: position,
          totalChars: position,
          totalLines: position,
          truncated: { type: 'boolean', description: 'maxChars cut the requested range.' },
          nextChar: {
            type: ['integer', 'null'],
            minimum: 0,
            description: 'fromChar to continue after a cut.',
          },
          nextLine: {
            type: ['integer', 'null'],
            minimum: 1,
            description: 'fromLine to continue, when the cut fell on a line end.',
          },
          budget: objectSchema(
            { perCall: position, perRun: position, usedThisRun: position, leftThisRun: position },
            ['perCall', 'perRun', 'usedThisRun', 'leftThisRun'],
          ),
        },
        [
          'ref',
          'name',
          'path',
          'section',
          'text',
          'start',
          'end',
          'startLine',
          'endLine',
          'totalChars',
          'totalLines',
          'truncated',
          'nextChar',
          'nextLine',
          'budget',
        ],
      ),
    }),
    async run(invocation) {
      const scope = {
        runId: invocation.run.id,
        callId: invocation.callId,
        profileId: invocation.run.profileId,
      };
      const input = args.parse(invocation);
      const read = await asRecoverable(() => skills.read(input, scope, limits));
      return { content: textParts(`${header(read)}\n\n${read.text}`), structured: read };
    },
  };
}
