import { ToolType } from '../../calls/graphql/tool.js';
import { actorOf } from '../../core/auth.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { builder, scopes } from '../../graphql/builder.js';
import type { McpServerStatus } from './connection-status.js';
import { McpUserCredentialInput, McpUserCredentialType } from './credentials/graphql.js';
import type { SyncChanges } from './registry-sync.js';
import {
  addMcpServerInputSchema,
  connectionStates,
  type McpServerConfig,
  mcpTransports,
  updateMcpServerInputSchema,
} from './rules/mcp-server.js';
import type { McpToolRow } from './service.js';

const McpTransportEnum = builder.enumType('McpTransport', {
  description: 'STDIO: a child process speaking on stdin/stdout. STREAMABLE_HTTP: an HTTP endpoint.',
  values: mcpTransports,
});
const McpConnectionStateEnum = builder.enumType('McpConnectionState', {
  values: connectionStates,
  description:
    'DISCONNECTED: the connection dropped and a reconnect is scheduled (or this process holds none). FAILED: the last attempt to connect failed; it is retried with back-off.',
});

const McpServerStatusType = builder.objectRef<McpServerStatus>('McpServerStatus').implement({
  description: 'The connection of the process that answers this request (each process keeps its own).',
  fields: (t) => ({
    state: t.expose('state', { description: 'Where the connection is.', type: McpConnectionStateEnum }),
    lastError: t.exposeString('lastError', {
      description: 'The last connection or listing error; null when there was none.',
      nullable: true,
    }),
    lastErrorAt: t.expose('lastErrorAt', {
      description: 'When lastError happened; null when there was none.',
      type: 'DateTime',
      nullable: true,
    }),
    connectedAt: t.expose('connectedAt', {
      description: 'When the current connection was made; null when not connected.',
      type: 'DateTime',
      nullable: true,
    }),
    toolCount: t.exposeInt('toolCount', { description: 'Tools the server listed at its latest listing.' }),
    failures: t.exposeInt('failures', { description: 'Connection attempts that failed in a row.' }),
    nextRetryAt: t.expose('nextRetryAt', {
      description: 'When the next connection attempt is due; null when none is scheduled.',
      type: 'DateTime',
      nullable: true,
    }),
    serverVersion: t.exposeString('serverVersion', {
      description: 'The name and version the server reported; null before it connected.',
      nullable: true,
    }),
  }),
});

const McpServerToolType = builder
  .objectRef<McpToolRow & { tool: ToolSpec | null }>('McpServerTool')
  .implement({
    description: 'A tool the server listed, and what the registry made of it.',
    fields: (t) => ({
      remoteName: t.exposeString('remoteName', { description: "The server's own name for the tool." }),
      present: t.exposeBoolean('present', {
        description: 'Offered at the latest listing; a tool that disappears is disabled, not deleted.',
      }),
      rejection: t.exposeString('rejection', {
        nullable: true,
        description: 'Why the tool could not be registered (its name, its schemas), if it could not.',
      }),
      declaredAnnotations: t.field({
        type: 'JSON',
        nullable: true,
        description: 'The MCP hints as the server declared them: untrusted, never used to relax approval.',
        resolve: (row) => row.hints,
      }),
      tool: t.field({
        description: 'The registry entry, `mcp.<server>.<tool>`; null when the tool was rejected.',
        type: ToolType,
        nullable: true,
        resolve: (row) => row.tool,
      }),
    }),
  });

const McpServerType = builder.objectRef<McpServerConfig>('McpServer').implement({
  description:
    'An MCP server configured by an admin. Env and header values may be secrets: only their names are shown.',
  fields: (t) => ({
    name: t.exposeString('name', {
      description: 'The server name; its tools are named `mcp.<name>.<tool>`.',
    }),
    transport: t.expose('transport', { description: 'How the server is reached.', type: McpTransportEnum }),
    enabled: t.exposeBoolean('enabled', {
      description: 'A disabled server has no connections and its tools are disabled.',
    }),
    command: t.exposeString('command', {
      description: 'STDIO: the executable; null for HTTP.',
      nullable: true,
    }),
    args: t.exposeStringList('args', { description: 'STDIO: its arguments.' }),
    envNames: t.stringList({
      description: 'STDIO: the names of the extra environment variables (values are write-only).',
      resolve: (s) => Object.keys(s.env),
    }),
    cwd: t.exposeString('cwd', {
      description: 'STDIO: the working directory; null for the default.',
      nullable: true,
    }),
    url: t.exposeString('url', {
      description: 'STREAMABLE_HTTP: the endpoint URL; null for STDIO.',
      nullable: true,
    }),
    headerNames: t.stringList({
      description: 'STREAMABLE_HTTP: the names of the request headers (values are write-only).',
      resolve: (s) => Object.keys(s.headers),
    }),
    userCredential: t.expose('userCredential', {
      description:
        "How each user's own credential goes with their calls; null when calls carry the headers alone.",
      type: McpUserCredentialType,
      nullable: true,
    }),
    createdAt: t.expose('createdAt', { description: 'When it was added.', type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', {
      description: 'When its configuration last changed.',
      type: 'DateTime',
    }),
    status: t.field({
      description: "This process's connection to it.",
      type: McpServerStatusType,
      resolve: (server, _args, ctx) => ctx.services.mcpConnections.status(server),
    }),
    tools: t.field({
      description: 'The tools it listed, and what the registry made of each.',
      type: [McpServerToolType],
      resolve: (server, _args, ctx) => ctx.services.mcpServers.tools(server.name),
    }),
  }),
});

const McpToolChangesType = builder.objectRef<SyncChanges>('McpToolChanges').implement({
  description: 'What a tool listing changed in the registry, by tool name.',
  fields: (t) => ({
    added: t.exposeStringList('added', { description: 'Tools registered for the first time.' }),
    updated: t.exposeStringList('updated', {
      description: 'Tools whose definition changed.',
    }),
    disabled: t.exposeStringList('disabled', { description: 'Tools no longer listed, now disabled.' }),
    reenabled: t.exposeStringList('reenabled', {
      description: 'Tools listed again after they had disappeared.',
    }),
    rejected: t.stringList({
      description: 'Tools that could not be registered, as `<name>: <reason>`.',
      resolve: (c) => c.rejected.map((r) => `${r.name}: ${r.reason}`),
    }),
  }),
});

const McpRefreshType = builder
  .objectRef<{ server: McpServerConfig; changes: SyncChanges | null }>('McpServerRefresh')
  .implement({
    description: 'A server after a refresh, and what its listing changed.',
    fields: (t) => ({
      server: t.expose('server', { description: 'The server.', type: McpServerType }),
      changes: t.expose('changes', {
        type: McpToolChangesType,
        nullable: true,
        description: 'What the listing changed in the registry; null when no listing was made.',
      }),
    }),
  });

const McpNameValueInput = builder.inputType('McpNameValueInput', {
  description: 'A name and a value (an environment variable or a header).',
  fields: (t) => ({
    name: t.string({ description: 'The name.', required: true }),
    value: t.string({ description: 'The value; it is stored but never shown again.', required: true }),
  }),
});

const AddMcpServerInput = builder.inputType('AddMcpServerInput', {
  description: 'An MCP server to configure: STDIO needs `command`, STREAMABLE_HTTP needs `url`.',
  fields: (t) => ({
    name: t.string({
      required: true,
      description: 'a-z 0-9 _ -, starting with a letter; tools are named mcp.<name>.<tool>',
    }),
    transport: t.field({ description: 'How the server is reached.', type: McpTransportEnum, required: true }),
    command: t.string({ description: 'STDIO: the executable to run (no shell).' }),
    args: t.stringList({ description: 'STDIO: arguments for the command.' }),
    env: t.field({
      type: [McpNameValueInput],
      description: 'STDIO: extra environment variables (write-only).',
    }),
    cwd: t.string({ description: 'STDIO: the working directory.' }),
    url: t.string({ description: 'STREAMABLE_HTTP: the endpoint URL.' }),
    headers: t.field({
      type: [McpNameValueInput],
      description: 'STREAMABLE_HTTP: request headers (write-only).',
    }),
    userCredential: t.field({
      type: McpUserCredentialInput,
      description: "STREAMABLE_HTTP: each user's calls carry their own credential.",
    }),
    enabled: t.boolean({ description: 'Default true.' }),
  }),
});

const UpdateMcpServerInput = builder.inputType('UpdateMcpServerInput', {
  description: 'Each field given replaces the stored one; env and headers are replaced as a whole.',
  fields: (t) => ({
    transport: t.field({ description: 'How the server is reached.', type: McpTransportEnum }),
    command: t.string({ description: 'STDIO: the executable to run (no shell).' }),
    args: t.stringList({ description: 'STDIO: arguments for the command.' }),
    env: t.field({
      description: 'STDIO: extra environment variables (write-only).',
      type: [McpNameValueInput],
    }),
    cwd: t.string({ description: 'STDIO: the working directory.' }),
    url: t.string({ description: 'STREAMABLE_HTTP: the endpoint URL.' }),
    headers: t.field({
      description: 'STREAMABLE_HTTP: request headers (write-only).',
      type: [McpNameValueInput],
    }),
    userCredential: t.field({
      type: McpUserCredentialInput,
      description: "STREAMABLE_HTTP: each user's calls carry their own credential; null stops it.",
    }),
  }),
});

builder.queryFields((t) => ({
  mcpServers: t.field({
    description: 'Every configured MCP server. ADMIN only.',
    type: [McpServerType],
    authScopes: scopes.admin,
    resolve: (_root, _args, ctx) => ctx.services.mcpServers.list(),
  }),
  mcpServer: t.field({
    description: 'One MCP server by name; null when there is none. ADMIN only.',
    type: McpServerType,
    nullable: true,
    authScopes: scopes.admin,
    args: { name: t.arg.string({ description: 'The server name.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.mcpServers.get(args.name),
  }),
}));

builder.mutationFields((t) => ({
  addMcpServer: t.field({
    type: McpServerType,
    description:
      'Configures an MCP server; every server process connects to it and registers its tools. ADMIN only.',
    authScopes: scopes.admin,
    args: {
      input: t.arg({
        description: 'The server.',
        type: AddMcpServerInput,
        required: true,
        validate: { schema: addMcpServerInputSchema },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.mcpServers.add(args.input, actorOf(ctx.principal)),
  }),
  updateMcpServer: t.field({
    description:
      'Changes the configuration of a server; a connection whose settings changed is made again. ADMIN only.',
    type: McpServerType,
    authScopes: scopes.admin,
    args: {
      name: t.arg.string({ description: 'The server name.', required: true }),
      input: t.arg({
        description: 'The changes.',
        type: UpdateMcpServerInput,
        required: true,
        validate: { schema: updateMcpServerInputSchema },
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.mcpServers.update(args.name, args.input, actorOf(ctx.principal)),
  }),
  setMcpServerEnabled: t.field({
    type: McpServerType,
    description:
      "Disabling closes the connections and disables the server's tools; enabling brings them back. ADMIN only.",
    authScopes: scopes.admin,
    args: {
      name: t.arg.string({ description: 'The server name.', required: true }),
      enabled: t.arg.boolean({ description: 'false disconnects it and disables its tools.', required: true }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.mcpServers.setEnabled(args.name, args.enabled, actorOf(ctx.principal)),
  }),
  removeMcpServer: t.boolean({
    description:
      'Removes the configuration. Its tools stay in the registry, disabled, with their history. ADMIN only.',
    authScopes: scopes.admin,
    args: { name: t.arg.string({ description: 'The server name.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.mcpServers.remove(args.name, actorOf(ctx.principal)),
  }),
  refreshMcpServer: t.field({
    type: McpRefreshType,
    description:
      "Lists the server's tools again now in this process, reconnecting at once (without the back-off) if it is not connected. ADMIN only.",
    authScopes: scopes.admin,
    args: { name: t.arg.string({ description: 'The server name.', required: true }) },
    resolve: async (_root, args, ctx) => {
      const { changes } = await ctx.services.mcpConnections.refresh(args.name);
      return { server: await ctx.services.mcpServers.require(args.name), changes };
    },
  }),
}));
