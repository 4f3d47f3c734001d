import { sql } from 'drizzle-orm';
import { index, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { runs, toolCalls } from '../../calls/tables.js';
import { createdAt, tstz } from '../../db/columns.js';
import { jsonb } from '../../db/jsonb.js';

/**
 * MCP sessions issued at `initialize`: everything a later request of the session needs, so that
 * any process answers it (no sticky sessions). A session belongs to the token that opened it.
 */
export const mcpSessions = pgTable('mcp_sessions', {
  id: text('id').primaryKey(),
  tokenId: uuid('token_id').notNull(),
  /** `''` for `/mcp`, else the upstream MCP server of `/mcp/<server>`. */
  server: text('server').notNull(),
  profileId: text('profile_id'),
  protocolVersion: text('protocol_version').notNull(),
  clientName: text('client_name').notNull(),
  clientVersion: text('client_version').notNull(),
  clientCapabilities: jsonb('client_capabilities').$type<Record<string, unknown>>().notNull(),
  /** The run its calls belong to, made at its first call. */
  runId: uuid('run_id').references(() => runs.id),
  createdAt: createdAt(),
  endedAt: tstz('ended_at'),
});

/**
 * Which run the gateway uses for a conversation: `session:<id>`, `run:<id>` (the X-Run-Id header)
 * or `day:<server>:<client>:<yyyy-mm-dd>` (requests without a session). The host's clientInfo and
 * the upstream server are what the console shows on the run.
 */
export const mcpRuns = pgTable(
  'mcp_runs',
  {
    tokenId: uuid('token_id').notNull(),
    key: text('key').notNull(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id),
    clientName: text('client_name').notNull(),
    clientVersion: text('client_version').notNull(),
    server: text('server'),
    sessionId: text('session_id'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tokenId, t.key] }), index('mcp_runs_run_idx').on(t.runId)],
);

/**
 * The one open call of a user's identical calls (same tool, same canonical arguments), which every
 * identical call attaches to until its outcome has been delivered once (`deliveredAt`, set by one
 * conditional update, so two retries cannot both deliver it). The row is taken before the call is
 * requested (`callId` null until then), and the unique index over the open rows lets one of two
 * identical first calls take it: the other attaches to its call instead of asking a person again.
 */
export const mcpPendingCalls = pgTable(
  'mcp_pending_calls',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    callId: uuid('call_id')
      .unique()
      .references(() => toolCalls.id),
    userId: text('user_id').notNull(),
    toolName: text('tool_name').notNull(),
    argumentsHash: text('arguments_hash').notNull(),
    createdAt: createdAt(),
    deliveredAt: tstz('delivered_at'),
  },
  (t) => [
    uniqueIndex('mcp_pending_calls_open_idx')
      .on(t.userId, t.toolName, t.argumentsHash)
      .where(sql`${t.deliveredAt} is null`),
  ],
);

export type McpSessionRow = typeof mcpSessions.$inferSelect;
export type McpRunRow = typeof mcpRuns.$inferSelect;

/**
 * A host's answer (a JSON-RPC response) to a request that another process sent it on a held
 * request's stream, kept until that process takes it (once: the take deletes it) or it expires.
 * Keyed by the request id and the session the answer came in: another session's answer to the
 * same id is a different row, which the asking process never takes.
 */
export const mcpHostAnswers = pgTable(
  'mcp_host_answers',
  {
    requestId: text('request_id').notNull(),
    /** `''` when the answering request carried no session. */
    sessionId: text('session_id').notNull(),
    message: jsonb('message').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    expiresAt: tstz('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.requestId, t.sessionId] }),
    index('mcp_host_answers_expires_idx').on(t.expiresAt),
  ],
);

/**
 * The upstream MCP session that carries a host session's resource subscriptions on
 * `/mcp/<server>` (a Streamable HTTP upstream): made by whichever process first needs it, kept
 * here so that any process sends the host's subscribe and unsubscribe on it and the process that
 * holds the host's GET stream opens the upstream's GET stream of it. Ended (DELETE upstream) with
 * the host session.
 */
export const mcpUpstreamSessions = pgTable('mcp_upstream_sessions', {
  sessionId: text('session_id')
    .primaryKey()
    .references(() => mcpSessions.id),
  upstreamSessionId: text('upstream_session_id').notNull(),
  protocolVersion: text('protocol_version').notNull(),
  createdAt: createdAt(),
});

/** The resources a host session subscribed to: subscribed again on a new upstream session when the old one is lost. */
export const mcpSubscriptions = pgTable(
  'mcp_subscriptions',
  {
    sessionId: text('session_id')
      .notNull()
      .references(() => mcpSessions.id),
    uri: text('uri').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.uri] })],
);

export type McpUpstreamSessionRow = typeof mcpUpstreamSessions.$inferSelect;
