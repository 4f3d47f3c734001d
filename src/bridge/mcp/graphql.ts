import { ToolType } from '../../calls/graphql/tool.js';
import { actorOf } from '../../core/auth.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { builder, scopes } from '../../graphql/builder.js';
import { connectionStates, type McpServerStatus } from './connection.js';
import type { SyncChanges } from './registry-sync.js';
import {
  addMcpServerInputSchema,
  type McpServerConfig,
  mcpTransports,
  updateMcpServerInputSchema,
} from './rules/mcp-server.js';
import type { McpToolRow } from './service.js';

const McpTransportEnum = builder.enumType('McpTransport', { values: mcpTransports });
const McpConnectionStateEnum = builder.enumType('McpConnectionState', {
  values: connectionStates,
  description:
    'DISCONNECTED: the connection dropped and a reconnect is scheduled (or this process holds none). FAILED: the last attempt to connect failed; it is retried with back-off.',
});

const McpServerStatusType = builder.objectRef<McpServerStatus>('McpServerStatus').implement({
  description: 'The connection of the process that answers this request (each process keeps its own).',
  fields: (t) => ({
    state: t.expose('state', { type: McpConnectionStateEnum }),
    lastError: t.exposeString('lastError', { nullable: true }),
    lastErrorAt: t.expose('lastErrorAt', { type: 'DateTime', nullable: true }),
    connectedAt: t.expose('connectedAt', { type: 'DateTime', nullable: true }),
    toolCount: t.exposeInt('toolCount'),
    failures: t.exposeInt('failures', { description: 'Connection attempts that failed in a row.' }),
    nextRetryAt: t.expose('nextRetryAt', { type: 'DateTime', nullable: true }),
    serverVersion: t.exposeString('serverVersion', { nullable: true }),
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
      tool: t.field({ type: ToolType, nullable: true, resolve: (row) => row.tool }),
    }),
  });

const McpServerType = builder.objectRef<McpServerConfig>('McpServer').implement({
  description:
    'An MCP server configured by an admin. Env and header values may be secrets: only their names are shown.',
  fields: (t) => ({
    name: t.exposeString('name'),
    transport: t.expose('transport', { type: McpTransportEnum }),
    enabled: t.exposeBoolean('enabled'),
    command: t.exposeString('command', { nullable: true }),
    args: t.exposeStringList('args'),
    envNames: t.stringList({ resolve: (s) => Object.keys(s.env) }),
    cwd: t.exposeString('cwd', { nullable: true }),
    url: t.exposeString('url', { nullable: true }),
    headerNames: t.stringList({ resolve: (s) => Object.keys(s.headers) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    status: t.field({
      type: McpServerStatusType,
      resolve: (server, _args, ctx) => ctx.services.mcpConnections.status(server),
    }),
    tools: t.field({
      type: [McpServerToolType],
      resolve: (server, _args, ctx) => ctx.services.mcpServers.tools(server.name),
    }),
  }),
});

const McpToolChangesType = builder.objectRef<SyncChanges>('McpToolChanges').implement({
  fields: (t) => ({
    added: t.exposeStringList('added'),
    updated: t.exposeStringList('updated'),
    disabled: t.exposeStringList('disabled'),
    reenabled: t.exposeStringList('reenabled'),
    rejected: t.stringList({ resolve: (c) => c.rejected.map((r) => `${r.name}: ${r.reason}`) }),
  }),
});

const McpRefreshType = builder
  .objectRef<{ server: McpServerConfig; changes: SyncChanges | null }>('McpServerRefresh')
  .implement({
    fields: (t) => ({
      server: t.expose('server', { type: McpServerType }),
      changes: t.expose('changes', {
        type: McpToolChangesType,
        nullable: true,
        description: 'What the listing changed in the registry; null when no listing was made.',
      }),
    }),
  });

const McpNameValueInput = builder.inputType('McpNameValueInput', {
  fields: (t) => ({ name: t.string({ required: true }), value: t.string({ required: true }) }),
});

const AddMcpServerInput = builder.inputType('AddMcpServerInput', {
  fields: (t) => ({
    name: t.string({
      required: true,
      description: 'a-z 0-9 _ -, starting with a letter; tools are named mcp.<name>.<tool>',
    }),
    transport: t.field({ type: McpTransportEnum, required: true }),
    command: t.string({ description: 'STDIO: the executable to run (no shell).' }),
    args: t.stringList(),
    env: t.field({
      type: [McpNameValueInput],
      description: 'STDIO: extra environment variables (write-only).',
    }),
    cwd: t.string(),
    url: t.string({ description: 'STREAMABLE_HTTP: the endpoint URL.' }),
    headers: t.field({
      type: [McpNameValueInput],
      description: 'STREAMABLE_HTTP: request headers (write-only).',
    }),
    enabled: t.boolean(),
  }),
});

const UpdateMcpServerInput = builder.inputType('UpdateMcpServerInput', {
  description: 'Each field given replaces the stored one; env and headers are replaced as a whole.',
  fields: (t) => ({
    transport: t.field({ type: McpTransportEnum }),
    command: t.string(),
    args: t.stringList(),
    env: t.field({ type: [McpNameValueInput] }),
    cwd: t.string(),
    url: t.string(),
    headers: t.field({ type: [McpNameValueInput] }),
  }),
});

builder.queryFields((t) => ({
  mcpServers: t.field({
    type: [McpServerType],
    authScopes: scopes.admin,
    resolve: (_root, _args, ctx) => ctx.services.mcpServers.list(),
  }),
  mcpServer: t.field({
    type: McpServerType,
    nullable: true,
    authScopes: scopes.admin,
    args: { name: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.mcpServers.get(args.name),
  }),
}));

builder.mutationFields((t) => ({
  addMcpServer: t.field({
    type: McpServerType,
    description: 'Configures an MCP server; every server process connects to it and registers its tools.',
    authScopes: scopes.admin,
    args: {
      input: t.arg({
        type: AddMcpServerInput,
        required: true,
        validate: { schema: addMcpServerInputSchema },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.mcpServers.add(args.input, actorOf(ctx.principal)),
  }),
  updateMcpServer: t.field({
    type: McpServerType,
    authScopes: scopes.admin,
    args: {
      name: t.arg.string({ required: true }),
      input: t.arg({
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
      "Disabling closes the connections and disables the server's tools; enabling brings them back.",
    authScopes: scopes.admin,
    args: { name: t.arg.string({ required: true }), enabled: t.arg.boolean({ required: true }) },
    resolve: (_root, args, ctx) =>
      ctx.services.mcpServers.setEnabled(args.name, args.enabled, actorOf(ctx.principal)),
  }),
  removeMcpServer: t.boolean({
    description: 'Removes the configuration. Its tools stay in the registry, disabled, with their history.',
    authScopes: scopes.admin,
    args: { name: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.mcpServers.remove(args.name, actorOf(ctx.principal)),
  }),
  refreshMcpServer: t.field({
    type: McpRefreshType,
    description:
      "Lists the server's tools again now in this process, reconnecting at once (without the back-off) if it is not connected.",
    authScopes: scopes.admin,
    args: { name: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { changes } = await ctx.services.mcpConnections.refresh(args.name);
      return { server: await ctx.services.mcpServers.require(args.name), changes };
    },
  }),
}));
