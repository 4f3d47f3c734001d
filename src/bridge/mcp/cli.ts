import { type Command, UsageError } from '../../cli/command.js';
import { credentialCommands } from './credentials/cli.js';
import type { UpstreamCredentials } from './credentials/store.js';
import type { McpConnectionManager } from './manager.js';
import type { McpServerConfig } from './rules/mcp-server.js';
import type { McpServerService } from './service.js';

const CLI_ACTOR = 'cli:mcp';

/** `--env NAME=value` / `--header Name=value`, repeatable. */
function pairs(values: unknown, flag: string): Array<{ name: string; value: string }> | undefined {
  if (values === undefined) return undefined;
  return (values as string[]).map((entry) => {
    const at = entry.indexOf('=');
    if (at <= 0) throw new UsageError(`--${flag} takes NAME=value, not ${JSON.stringify(entry)}`);
    return { name: entry.slice(0, at), value: entry.slice(at + 1) };
  });
}

function describe(server: McpServerConfig): string {
  const target =
    server.transport === 'STDIO'
      ? [server.command, ...server.args].map((a) => JSON.stringify(a)).join(' ')
      : server.url;
  const env = Object.keys(server.env).length ? `  env: ${Object.keys(server.env).join(', ')}` : '';
  const headers = Object.keys(server.headers).length
    ? `  headers: ${Object.keys(server.headers).join(', ')}`
    : '';
  const perUser = server.userCredential ? `  per-user: ${server.userCredential.mode.toLowerCase()}` : '';
  return `${server.name}  ${server.transport.toLowerCase()}  ${server.enabled ? 'enabled' : 'disabled'}  ${target}${env}${headers}${perUser}`;
}

const transportOptions = {
  command: { type: 'string', description: 'STDIO: the executable (its arguments go after --)' },
  env: {
    type: 'string',
    multiple: true,
    description: 'STDIO: NAME=value, repeatable (values are never shown)',
  },
  cwd: { type: 'string', description: 'STDIO: working directory' },
  url: { type: 'string', description: 'STREAMABLE_HTTP: endpoint URL' },
  header: {
    type: 'string',
    multiple: true,
    description: 'STREAMABLE_HTTP: Name=value, repeatable (values are never shown)',
  },
  'user-credential': {
    type: 'string',
    description: "STREAMABLE_HTTP: each user's calls carry their own credential: stored or token_exchange",
  },
  'credential-header': { type: 'string', description: 'the header it goes in (default Authorization)' },
  'credential-scheme': { type: 'string', description: 'bearer (default) or raw' },
  audience: { type: 'string', description: 'token_exchange: the audience asked of the IdP' },
  scope: { type: 'string', description: 'token_exchange: the scope asked of the IdP' },
} as const;

/** The --user-credential options as the service's input; undefined when not given. */
function userCredentialOf(values: Record<string, unknown>) {
  const mode = values['user-credential'];
  if (typeof mode !== 'string') return undefined;
  const scheme = values['credential-scheme'];
  return {
    mode: mode.toUpperCase(),
    header: values['credential-header'],
    scheme: typeof scheme === 'string' ? scheme.toUpperCase() : undefined,
    audience: values.audience,
    scope: values.scope,
  };
}

type McpCommand = Command<{
  mcpServers: McpServerService;
  mcpConnections: McpConnectionManager;
  upstreamCredentials: UpstreamCredentials;
}>;

export const mcpCommands: McpCommand[] = [
  {
    path: ['mcp', 'add'],
    summary: 'Configure an MCP server (stdio with --command, or Streamable HTTP with --url).',
    usage:
      'mcp add <name> (--command <cmd> [--env K=V]... [--cwd <dir>] [-- <args>...] | --url <url> [--header K=V]... [--user-credential stored|token_exchange [--credential-header H] [--credential-scheme bearer|raw] [--audience A] [--scope S]]) [--disabled]',
    options: {
      ...transportOptions,
      disabled: { type: 'boolean', description: 'add it without connecting' },
    },
    async run({ values, positionals }, services, io) {
      const [name, ...args] = positionals;
      if (!name) throw new UsageError('the server name is required');
      const stdio = values.command !== undefined;
      const server = await services.mcpServers.add(
        {
          name,
          transport: stdio ? 'STDIO' : 'STREAMABLE_HTTP',
          command: values.command,
          args: stdio ? args : undefined,
          env: pairs(values.env, 'env'),
          cwd: values.cwd,
          url: values.url,
          headers: pairs(values.header, 'header'),
          userCredential: userCredentialOf(values),
          enabled: values.disabled !== true,
        },
        CLI_ACTOR,
      );
      io.out(`added ${describe(server)}`);
      return 0;
    },
  },
  {
    path: ['mcp', 'update'],
    summary: 'Change an MCP server (each option given replaces the stored value; arguments go after --).',
    usage:
      'mcp update <name> [--command <cmd>] [--env K=V]... [--cwd <dir>] [--url <url>] [--header K=V]... [-- <args>...]',
    options: transportOptions,
    async run({ values, positionals }, services, io) {
      const [name, ...args] = positionals;
      if (!name) throw new UsageError('the server name is required');
      const server = await services.mcpServers.update(
        name,
        {
          command: values.command,
          args: args.length > 0 ? args : undefined,
          env: pairs(values.env, 'env'),
          cwd: values.cwd,
          url: values.url,
          headers: pairs(values.header, 'header'),
          userCredential: userCredentialOf(values),
        },
        CLI_ACTOR,
      );
      io.out(`updated ${describe(server)}`);
      return 0;
    },
  },
  {
    path: ['mcp', 'list'],
    summary: 'List the configured MCP servers (env and header names only).',
    usage: 'mcp list',
    async run(_args, services, io) {
      for (const server of await services.mcpServers.list()) io.out(describe(server));
      return 0;
    },
  },
  {
    path: ['mcp', 'tools'],
    summary: "List what an MCP server offered at its latest listing and each tool's registry state.",
    usage: 'mcp tools <name>',
    async run({ positionals }, services, io) {
      const [name] = positionals;
      if (!name) throw new UsageError('the server name is required');
      await services.mcpServers.require(name);
      for (const row of await services.mcpServers.tools(name)) {
        const state = row.rejection
          ? `rejected: ${row.rejection}`
          : `${row.toolName}  ${row.tool?.enabled ? 'enabled' : 'disabled'}${row.present ? '' : ' (gone)'}`;
        io.out(`${row.remoteName}  ${state}`);
      }
      return 0;
    },
  },
  {
    path: ['mcp', 'refresh'],
    summary: 'Connect to an MCP server once, list its tools into the registry, and print what changed.',
    usage: 'mcp refresh <name>',
    async run({ positionals }, services, io) {
      const [name] = positionals;
      if (!name) throw new UsageError('the server name is required');
      const { status, changes } = await services.mcpConnections.refresh(name);
      if (status.lastError && status.state !== 'CONNECTED') {
        io.err(`${name}: ${status.state.toLowerCase()}: ${status.lastError}`);
        return 1;
      }
      io.out(`${name}: ${status.toolCount} tools registered`);
      for (const [what, list] of Object.entries(changes ?? {}))
        for (const item of list as Array<string | { name: string; reason: string }>)
          io.out(`  ${what} ${typeof item === 'string' ? item : `${item.name}: ${item.reason}`}`);
      return 0;
    },
  },
  ...(['enable', 'disable'] as const).map(
    (verb): McpCommand => ({
      path: ['mcp', verb],
      summary: verb === 'enable' ? 'Enable an MCP server.' : 'Disable an MCP server and its tools.',
      usage: `mcp ${verb} <name>`,
      async run({ positionals }, services, io) {
        const [name] = positionals;
        if (!name) throw new UsageError('the server name is required');
        await services.mcpServers.setEnabled(name, verb === 'enable', CLI_ACTOR);
        io.out(`${verb}d ${name}`);
        return 0;
      },
    }),
  ),
  {
    path: ['mcp', 'remove'],
    summary: 'Remove an MCP server; its tools stay in the registry, disabled.',
    usage: 'mcp remove <name>',
    async run({ positionals }, services, io) {
      const [name] = positionals;
      if (!name) throw new UsageError('the server name is required');
      await services.mcpServers.remove(name, CLI_ACTOR);
      io.out(`removed ${name}`);
      return 0;
    },
  },
  ...credentialCommands,
];
