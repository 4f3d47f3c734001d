import { type Command, UsageError } from '../../cli/command.js';
import { roles } from '../../core/auth.js';
import type { BindTokenInput } from './inputs.js';
import type { ApiTokenRow, TokenService } from './service.js';

const roleOf = (value: unknown) => {
  const role = String(value ?? '').toUpperCase();
  if (!(roles as readonly string[]).includes(role)) {
    throw new UsageError(`--role must be one of ${roles.map((r) => r.toLowerCase()).join(', ')}`);
  }
  return role;
};

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** `90s`, `5m`, `12h`, `30d` in seconds; a usage error naming the option otherwise. */
export function parseDuration(value: string, option: string): number {
  const match = /^(\d+)([smhd])$/.exec(value.trim());
  if (!match)
    throw new UsageError(`${option} must be a number with a unit s, m, h or d (e.g. 30d), not ${value}`);
  return Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
}

/** `--expires`: a duration from now (`30d`) or an ISO date or date-time (`2026-01-31`, `2026-01-31T12:00:00Z`). */
export function parseExpiry(value: string, now = new Date()): Date {
  if (/^\d+[smhd]$/.test(value.trim()))
    return new Date(now.getTime() + parseDuration(value, '--expires') * 1000);
  const date = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())
    ? new Date(value.trim())
    : null;
  if (!date || Number.isNaN(date.getTime()))
    throw new UsageError(`--expires must be a duration (30d, 12h, 5m, 90s) or an ISO date, not ${value}`);
  return date;
}

/** `a,b` as ['a', 'b']; an option not given stays undefined (so `token bind` leaves it as it is). */
const listOf = (value: unknown): string[] | undefined =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== '')
    : undefined;

const bindingOptions = {
  'user-id': { type: 'string', description: 'agent: the one user its runs act for' },
  users: { type: 'string', description: 'approver/viewer: the users (ids or globs, comma-separated)' },
  'all-users': { type: 'boolean', description: 'approver/viewer: every user' },
  profiles: { type: 'string', description: 'agent: the profiles its runs may use (comma-separated globs)' },
  'plan-nodes': { type: 'string', description: 'agent: the plan nodes its runs may name (comma-separated)' },
} as const;

/** One line of `token list`: who the token acts for, and when it expires and was last used. */
function describe(t: ApiTokenRow, now: Date): string {
  const binding = [
    t.userId ? `user=${t.userId}` : null,
    t.allUsers ? 'users=*' : t.users.length ? `users=${t.users.join(',')}` : null,
    t.role === 'AGENT' ? `profiles=${t.profiles.join(',') || '(none)'}` : null,
    t.planNodes ? `plan-nodes=${t.planNodes.join(',')}` : null,
    t.extensionId ? `extension=${t.extensionId}` : null,
    t.legacyUnbound ? 'legacy-unbound' : null,
  ].filter((part) => part !== null);
  const state = t.revokedAt
    ? `revoked ${t.revokedAt.toISOString()}`
    : t.expiresAt && t.expiresAt <= now
      ? `expired ${t.expiresAt.toISOString()}`
      : t.expiresAt
        ? `expires ${t.expiresAt.toISOString()}`
        : 'active';
  const used = t.lastUsedAt ? `last used ${t.lastUsedAt.toISOString()}` : 'never used';
  return [t.id, t.role.toLowerCase().padEnd(9), t.name, binding.join(' ') || '-', state, used].join('  ');
}

export const tokenCommands: Command<{ tokens: TokenService }>[] = [
  {
    path: ['token', 'create'],
    summary: 'Create an API token and print its secret (shown once).',
    usage:
      'token create --role <admin|host|approver|agent|extension|viewer> --name <name> [--user-id <id>] [--users a,b | --all-users] [--profiles p1,p2] [--plan-nodes n1] [--extension-id <id>] [--expires 30d|<ISO date>]',
    options: {
      role: { type: 'string', description: 'the role of the token' },
      name: { type: 'string', description: 'a name to recognise it by' },
      ...bindingOptions,
      'extension-id': { type: 'string', description: 'required for extension tokens' },
      expires: { type: 'string', description: 'when it stops working: 30d, 12h, 5m, 90s or an ISO date' },
    },
    async run({ values }, services, io) {
      if (!values.name) throw new UsageError('--name is required');
      const { secret, token } = await services.tokens.create({
        name: values.name,
        role: roleOf(values.role),
        userId: values['user-id'] ?? null,
        users: listOf(values.users) ?? null,
        allUsers: values['all-users'] === true ? true : null,
        profiles: listOf(values.profiles) ?? null,
        planNodes: listOf(values['plan-nodes']) ?? null,
        extensionId: values['extension-id'] ?? null,
        expiresAt: typeof values.expires === 'string' ? parseExpiry(values.expires) : null,
      });
      io.out(`created ${token.role.toLowerCase()} token ${token.name} (${token.id})`);
      io.out(secret);
      return 0;
    },
  },
  {
    path: ['token', 'bind'],
    summary: 'Change whom a token acts for, or mark a token from before bindings legacy-unbound.',
    usage:
      'token bind <id> [--user-id <id>] [--users a,b | --all-users] [--profiles p1,p2] [--plan-nodes n1] [--legacy-unbound]',
    options: {
      ...bindingOptions,
      'legacy-unbound': { type: 'boolean', description: 'keep a token from before bindings working unbound' },
    },
    async run({ values, positionals }, services, io) {
      const id = positionals[0];
      if (!id) throw new UsageError('the token id is required');
      const input: BindTokenInput = {
        userId: typeof values['user-id'] === 'string' ? values['user-id'] : undefined,
        users: listOf(values.users),
        allUsers: values['all-users'] === true ? true : undefined,
        profiles: listOf(values.profiles),
        planNodes: listOf(values['plan-nodes']),
        legacyUnbound: values['legacy-unbound'] === true ? true : undefined,
      };
      if (Object.values(input).every((v) => v === undefined))
        throw new UsageError(
          'say what to bind: --user-id, --users, --all-users, --profiles, --plan-nodes or --legacy-unbound',
        );
      const token = await services.tokens.bind(id, input);
      io.out(describe(token, new Date()));
      return 0;
    },
  },
  {
    path: ['token', 'rotate'],
    summary:
      'Give a token a new secret (printed once); the old one works for the overlap (default 5m, at most 1h).',
    usage: 'token rotate <id> [--overlap 5m]',
    options: { overlap: { type: 'string', description: 'how long the old secret keeps working: 0s to 1h' } },
    async run({ values, positionals }, services, io) {
      const id = positionals[0];
      if (!id) throw new UsageError('the token id is required');
      const overlapSeconds =
        typeof values.overlap === 'string' ? parseDuration(values.overlap, '--overlap') : 300;
      const { secret, token } = await services.tokens.rotate(id, { overlapSeconds });
      io.out(
        `rotated ${token.role.toLowerCase()} token ${token.name} (${token.id}); the old secret works until ${token.previousValidUntil!.toISOString()}`,
      );
      io.out(secret);
      return 0;
    },
  },
  {
    path: ['token', 'list'],
    summary: 'List API tokens with their bindings, expiry and last use (never their secrets).',
    usage: 'token list',
    async run(_args, services, io) {
      const now = new Date();
      for (const t of await services.tokens.list()) io.out(describe(t, now));
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
