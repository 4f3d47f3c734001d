import type { ConnectionState } from './rules/mcp-server.js';

/** How this process's connection to one server stands. Each process keeps its own connections. */
export interface McpServerStatus {
  state: ConnectionState;
  lastError: string | null;
  lastErrorAt: Date | null;
  connectedAt: Date | null;
  /** Tools registered from the server's latest listing (rejected ones not counted). */
  toolCount: number;
  /** Connection attempts that failed in a row; the back-off grows with it. */
  failures: number;
  nextRetryAt: Date | null;
  serverVersion: string | null;
}

/** A server this process has not (yet) connected to. */
export function idleStatus(state: ConnectionState): McpServerStatus {
  return {
    state,
    lastError: null,
    lastErrorAt: null,
    connectedAt: null,
    toolCount: 0,
    failures: 0,
    nextRetryAt: null,
    serverVersion: null,
  };
}

export interface ConnectionOptions {
  connectTimeoutMs: number;
  listTimeoutMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}

export const defaultConnectionOptions: ConnectionOptions = {
  connectTimeoutMs: 20_000,
  listTimeoutMs: 20_000,
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
};
