import { type Command, UsageError } from '../cli/command.js';
import type { ProfileRunDefaultsService } from './run-defaults-service.js';

const count = (value: unknown, name: string): number | null => {
  if (value === undefined) return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a whole number above 0`);
  return n;
};

/** Run defaults from the command line, as setProfileRunDefaults does them over GraphQL. */
export const runDefaultsCommands: Command<{ runDefaults: ProfileRunDefaultsService }>[] = [
  {
    path: ['run-defaults', 'set'],
    summary:
      "Set a profile's run defaults (`*`: every profile without its own); agents may only tighten them.",
    usage:
      'run-defaults set <profile-id|*> [--denied-tool-strategy fail_run|return_denied_result] [--max-calls <n>] [--max-calls-per-tool <n>]',
    options: {
      'denied-tool-strategy': {
        type: 'string',
        description: 'what a call to a hidden tool does: fail_run or return_denied_result',
      },
      'max-calls': { type: 'string', description: 'calls a run may make at most' },
      'max-calls-per-tool': { type: 'string', description: 'calls a run may make to any one tool at most' },
    },
    async run({ positionals, values }, services, io) {
      const [profileId] = positionals;
      if (!profileId) throw new UsageError('the profile id (or *) is required');
      const strategy = values['denied-tool-strategy'];
      const row = await services.runDefaults.set(
        {
          profileId,
          deniedToolStrategy: typeof strategy === 'string' ? strategy.toUpperCase() : null,
          maxCalls: count(values['max-calls'], 'max-calls'),
          maxCallsPerTool: count(values['max-calls-per-tool'], 'max-calls-per-tool'),
        },
        'cli:run-defaults',
      );
      io.out(`run defaults of ${row.profileId}: ${describe(row)}`);
      return 0;
    },
  },
  {
    path: ['run-defaults', 'list'],
    summary: "List every profile's run defaults.",
    usage: 'run-defaults list',
    async run(_args, services, io) {
      for (const row of await services.runDefaults.list())
        io.out(`${row.profileId.padEnd(20)} ${describe(row)}`);
      return 0;
    },
  },
  {
    path: ['run-defaults', 'remove'],
    summary: "Remove a profile's run defaults (its runs fall back to `*`'s).",
    usage: 'run-defaults remove <profile-id|*>',
    async run({ positionals }, services, io) {
      const [profileId] = positionals;
      if (!profileId) throw new UsageError('the profile id (or *) is required');
      await services.runDefaults.remove(profileId);
      io.out(`removed the run defaults of ${profileId}`);
      return 0;
    },
  },
];

function describe(row: {
  deniedToolStrategy: string | null;
  maxCalls: number | null;
  maxCallsPerTool: number | null;
}): string {
  return [
    `deniedToolStrategy ${row.deniedToolStrategy ?? '-'}`,
    `maxCalls ${row.maxCalls ?? '-'}`,
    `maxCallsPerTool ${row.maxCallsPerTool ?? '-'}`,
  ].join(', ');
}
