import { type Command, UsageError } from '../../../cli/command.js';
import type { CredentialMetadata, UpstreamCredentials } from './store.js';

type CredentialCommand = Command<{ upstreamCredentials: UpstreamCredentials }>;

function describe(c: CredentialMetadata): string {
  const expiry = c.expiresAt ? `  expires ${c.expiresAt.toISOString()}` : '';
  return `${c.serverName}  ${c.userId}  ${c.source.toLowerCase()}  key ${c.keyId}  set ${c.setAt.toISOString()}${expiry}`;
}

function serverAndUser(positionals: string[], user: unknown): [string, string] {
  const [server] = positionals;
  if (!server) throw new UsageError('the server name is required');
  if (typeof user !== 'string' || user === '') throw new UsageError('--user is required');
  return [server, user];
}

/** Per-user upstream credentials from the operator's shell: values are read from the environment, never argv. */
export const credentialCommands: CredentialCommand[] = [
  {
    path: ['mcp', 'credential', 'set'],
    summary:
      "Set a user's own credential for a STORED-mode MCP server, read from an environment variable (never shown again).",
    usage: 'mcp credential set <server> --user <id> --from-env <VAR>',
    options: {
      user: { type: 'string', description: 'the user whose calls it goes with' },
      'from-env': { type: 'string', description: 'the environment variable holding the credential' },
    },
    async run({ values, positionals }, services, io) {
      const [server, user] = serverAndUser(positionals, values.user);
      const variable = values['from-env'];
      if (typeof variable !== 'string' || variable === '') throw new UsageError('--from-env is required');
      const secret = process.env[variable];
      if (secret === undefined) throw new UsageError(`the environment variable ${variable} is not set`);
      io.out(`set ${describe(await services.upstreamCredentials.setFor(user, server, secret))}`);
      return 0;
    },
  },
  {
    path: ['mcp', 'credential', 'remove'],
    summary: "Remove a user's credential for an MCP server.",
    usage: 'mcp credential remove <server> --user <id>',
    options: { user: { type: 'string', description: 'the user' } },
    async run({ values, positionals }, services, io) {
      const [server, user] = serverAndUser(positionals, values.user);
      const removed = await services.upstreamCredentials.removeFor(user, server);
      io.out(removed ? `removed ${server} ${user}` : `${user} has no credential for ${server}`);
      return 0;
    },
  },
  {
    path: ['mcp', 'credential', 'list'],
    summary: 'List upstream credentials: whose, for which server, under which key, when set (never a value).',
    usage: 'mcp credential list [--server <name>] [--user <id>]',
    options: {
      server: { type: 'string', description: 'only this server' },
      user: { type: 'string', description: 'only this user' },
    },
    async run({ values }, services, io) {
      const list = await services.upstreamCredentials.list({
        serverName: typeof values.server === 'string' ? values.server : null,
        userId: typeof values.user === 'string' ? values.user : null,
      });
      for (const credential of list) io.out(describe(credential));
      return 0;
    },
  },
  {
    path: ['mcp', 'credential', 'reencrypt'],
    summary:
      'Re-encrypt every upstream credential under the first key of CREDENTIALS_KEY (after rotating it).',
    usage: 'mcp credential reencrypt',
    async run(_args, services, io) {
      io.out(`re-encrypted ${await services.upstreamCredentials.reencrypt()} credentials`);
      return 0;
    },
  },
];
