import { CLI_PRINCIPAL, type Command, UsageError } from '../../cli/command.js';
import { describeCondition } from '../../core/policy-conditions.js';
import type { GrantService } from './service.js';
import type { GrantRow } from './tables.js';

/** One line of `grants list`: what it allows where, who made it when, and whether it still stands. */
function describe(g: GrantRow): string {
  const where = g.runId ? `run=${g.runId}` : g.profileId ? `profile=${g.profileId}` : `user=${g.userId}`;
  const when = g.conditions.length ? ` when ${g.conditions.map(describeCondition).join(' and ')}` : '';
  const state = g.revokedAt ? `revoked ${g.revokedAt.toISOString()} by ${g.revokedBy}` : 'active';
  return [
    g.id,
    g.scope.toLowerCase().padEnd(6),
    `${g.toolName}${when}`,
    where,
    `by ${g.createdBy} ${g.createdAt.toISOString()}`,
    state,
  ].join('  ');
}

export const grantCommands: Command<{ grants: GrantService }>[] = [
  {
    path: ['grants', 'list'],
    summary: 'List scoped grants (RUN and ALWAYS approvals), newest first: who made them and when.',
    usage: 'grants list [--run <run-id>] [--user <user-id>] [--include-revoked]',
    options: {
      run: { type: 'string', description: 'only the grants of this run' },
      user: { type: 'string', description: 'only the grants for this user' },
      'include-revoked': { type: 'boolean', description: 'list revoked grants too' },
    },
    async run({ values }, services, io) {
      const rows = await services.grants.list(
        {
          runId: typeof values.run === 'string' ? values.run : null,
          userId: typeof values.user === 'string' ? values.user : null,
          includeRevoked: values['include-revoked'] === true,
        },
        CLI_PRINCIPAL,
      );
      if (rows.length === 0) io.out('no grants');
      for (const row of rows) io.out(describe(row));
      return 0;
    },
  },
  {
    path: ['grants', 'revoke'],
    summary: 'Revoke a grant: the next matching call asks again (an ALWAYS grant loses its policy rule).',
    usage: 'grants revoke <grant-id>',
    async run({ positionals }, services, io) {
      const [id] = positionals;
      if (!id) throw new UsageError('the grant id is required');
      const revoked = await services.grants.revoke(id, CLI_PRINCIPAL);
      io.out(`revoked grant ${revoked.id} (${revoked.scope} ${revoked.toolName})`);
      return 0;
    },
  },
];
