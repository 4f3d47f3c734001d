import { z } from 'zod';
import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { defineArguments } from '../../../calls/tool-kit.js';
import type { Workspaces } from '../workspaces.js';
import { checkpointRefSchema, objectSchema, plural, sessionOf, sha256Schema, spec } from './common.js';

const args = defineArguments({
  summary: z.string().max(4000).optional().describe('What was done, in a few sentences.'),
  artifacts: z
    .array(z.string().min(1).max(4096))
    .max(100)
    .optional()
    .describe('Files (or folders ending in "/") that make up the result, e.g. ["output/report.md"].'),
});

export function finishTool(workspaces: Workspaces): BuiltInTool {
  return {
    spec: spec({
      name: 'workspace.finish',
      title: 'Finish the work',
      description:
        'Declares that the work is done and ends the run. The workspace is checked first: every required ' +
        'artifact (by default, at least one non-empty file in output/) and every path you list in `artifacts` ' +
        'must exist and be non-empty. If something is missing, nothing ends: the error names what is missing, ' +
        'so write it and call workspace.finish again. A path in `artifacts` ending in "/" is a folder that must ' +
        'hold a non-empty file.',
      inputSchema: args.inputSchema,
      outputSchema: objectSchema(
        {
          completed: { const: true },
          summary: { type: ['string', 'null'] },
          artifacts: {
            type: 'array',
            items: objectSchema(
              { path: { type: 'string' }, size: { type: 'integer', minimum: 1 }, sha256: sha256Schema },
              ['path', 'size', 'sha256'],
            ),
          },
          checkpoint: { ...checkpointRefSchema, description: 'The checkpoint holding the finished work.' },
        },
        ['completed', 'summary', 'artifacts', 'checkpoint'],
      ),
      annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false, cost: 'LOW' },
    }),
    async run(invocation) {
      const session = sessionOf(invocation);
      const { summary, artifacts } = args.parse(invocation);
      const finished = await workspaces.sessions.finish(session, artifacts ?? []);
      const list = finished.artifacts.map((a) => a.path).join(', ');
      return {
        content: [
          {
            type: 'text',
            text: `Finished with ${plural(finished.artifacts.length, 'artifact')} (${list}); checkpoint #${finished.checkpoint.number}.`,
          },
        ],
        structured: {
          completed: true,
          summary: summary ?? null,
          artifacts: finished.artifacts.map(({ path, size, sha256 }) => ({ path, size, sha256 })),
          checkpoint: finished.checkpoint,
        },
        completeRun: true,
      };
    },
  };
}
