import { boolean, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { bytea, createdAt, tstz, updatedAt } from '../../db/columns.js';
import { jsonb } from '../../db/jsonb.js';
import { mcpTransports } from './rules/mcp-server.js';
import { type UserCredentialConfig, userCredentialModes } from './rules/user-credential.js';

/**
 * Issue 6: MCP servers are configured by an admin only (GraphQL or CLI): a stdio command is run
 * exactly as stored here and never comes from a model, a run or an extension. Env and header
 * values may be secrets; the API shows their names only.
 */
export const mcpServers = pgTable('mcp_servers', {
  /** Identifier-safe: it becomes the middle part of every tool name, `mcp.<name>.<tool>`. */
  name: text('name').primaryKey(),
  transport: text('transport', { enum: mcpTransports }).notNull(),
  command: text('command'),
  args: jsonb('args').$type<string[]>().notNull().default([]),
  env: jsonb('env').$type<Record<string, string>>().notNull().default({}),
  cwd: text('cwd'),
  url: text('url'),
  headers: jsonb('headers').$type<Record<string, string>>().notNull().default({}),
  /** Issue 29: each user's own credential goes with their calls (how it is obtained and sent). */
  userCredential: jsonb('user_credential').$type<UserCredentialConfig>(),
  enabled: boolean('enabled').notNull().default(true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** MCP's own side-effect hints, as the server declared them (untrusted, kept for people to read). */
export interface McpToolHints {
  title?: string | undefined;
  readOnlyHint?: boolean | undefined;
  destructiveHint?: boolean | undefined;
  idempotentHint?: boolean | undefined;
  openWorldHint?: boolean | undefined;
}

/**
 * What each server last offered. `present` tells a tool that disappeared (its spec was disabled
 * by the sync, and is re-enabled when it comes back) from one an admin disabled while it was
 * offered (left alone). A tool whose name cannot be registered keeps its rejection here.
 */
export const mcpTools = pgTable(
  'mcp_tools',
  {
    serverName: text('server_name')
      .notNull()
      .references(() => mcpServers.name, { onDelete: 'cascade' }),
    remoteName: text('remote_name').notNull(),
    /** The registry name (`mcp.<server>.<tool>`); null when the tool was rejected. */
    toolName: text('tool_name'),
    present: boolean('present').notNull(),
    /**
     * The sync disabled this tool's spec when it stopped being offered (it was enabled then). Only
     * such a tool is enabled again when it returns: one an admin had disabled stays disabled, even
     * across its server being disabled and enabled.
     */
    disabledBySync: boolean('disabled_by_sync').notNull().default(false),
    rejection: text('rejection'),
    hints: jsonb('hints').$type<McpToolHints>(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.serverName, t.remoteName] })],
);

/**
 * Which processes hold a live connection to which server, renewed while it lasts: a tool is
 * offered only while its server is connected somewhere.
 */
export const mcpConnections = pgTable(
  'mcp_connections',
  {
    serverName: text('server_name')
      .notNull()
      .references(() => mcpServers.name, { onDelete: 'cascade' }),
    processId: text('process_id').notNull(),
    connectedAt: tstz('connected_at').notNull().defaultNow(),
    expiresAt: tstz('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.serverName, t.processId] })],
);

/**
 * Issue 29: each user's credential for a server, encrypted with AES-256-GCM under a key of
 * CREDENTIALS_KEY (`keyId` names it, so keys rotate: old rows decrypt until re-encrypted). The
 * additional data binds a ciphertext to its user, server and source, so a row copied onto another
 * does not decrypt. STORED rows are what the user set; EXCHANGED rows are the IdP's answer to a
 * token exchange, kept until `expiresAt`. Nothing here is ever returned to anyone.
 */
export const upstreamCredentials = pgTable(
  'upstream_credentials',
  {
    userId: text('user_id').notNull(),
    serverName: text('server_name')
      .notNull()
      .references(() => mcpServers.name, { onDelete: 'cascade' }),
    source: text('source', { enum: userCredentialModes }).notNull(),
    keyId: text('key_id').notNull(),
    iv: bytea('iv').notNull(),
    ciphertext: bytea('ciphertext').notNull(),
    authTag: bytea('auth_tag').notNull(),
    /** EXCHANGED: when the upstream token stops working; STORED: null. */
    expiresAt: tstz('expires_at'),
    setAt: tstz('set_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.serverName] })],
);
