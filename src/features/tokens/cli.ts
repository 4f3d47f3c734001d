import { type Command, UsageError } from '../../cli/command.js';
import { roles } from '../../core/auth.js';
import type { TokenService } from './service.js';

const roleOf = (value: unknown) => {
  const role = String(value ?? '').toUpperCase();
  if (!(roles as readonly string[]).includes(role)) {
    throw new UsageError(`--role must be one of ${roles.map((r) => r.toLowerCase()).join(', ')}`);
  }
  return role;
};

export const tokenCommands: Command<{ tokens: TokenService }>[] = [
  {
    path: ['token', 'create'],
    summary: 'Create an API token and print its secret (shown once).',
    usage:
      'token create --role <admin|approver|agent|extension|viewer> --name <name> [--user-id <id>] [--extension-id <id>]',
    options: {
      role: { type: 'string', description: 'the role of the token' },
      name: { type: 'string', description: 'a name to recognise it by' },
      'user-id': { type: 'string', description: 'the person it acts for (USER policy layer)' },
      'extension-id': { type: 'string', description: 'required for extension tokens' },
    },
    async run({ values }, services, io) {
      if (!values.name) throw new UsageError('--name is required');
      const { secret, token } = await services.tokens.create({
        name: values.name,
        role: roleOf(values.role),
        userId: values['user-id'] ?? null,
        extensionId: values['extension-id'] ?? null,
      });
      io.out(`created ${token.role.toLowerCase()} token ${token.name} (${token.id})`);
      io.out(secret);
      return 0;
    },
  },
  {
    path: ['token', 'list'],
    summary: 'List API tokens (never their secrets).',
    usage: 'token list',
    async run(_args, services, io) {
      for (const t of await services.tokens.list()) {
        const state = t.revokedAt ? `revoked ${t.revokedAt.toISOString()}` : 'active';
        io.out(`${t.id}  ${t.role.toLowerCase().padEnd(9)}  ${t.name}  ${state}`);
      }
      return 0;
    },
  },
  {
    path: ['token', 'revoke'],
    summary: 'Revoke an API token by id.',
    usage: 'token revoke <id>',
    async run({ positionals }, services, io) {
      const id = positionals[0];
      if (!id) throw new UsageError('the token id is required');
      await services.tokens.revoke(id);
      io.out(`revoked ${id}`);
      return 0;
    },
  },
];
