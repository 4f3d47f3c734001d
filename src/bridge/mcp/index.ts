/** MCP servers as other modules see them: configuration, this process's connections, the executor. */
export { mcpCommands } from './cli.js';
export { type ConnectionOptions, defaultConnectionOptions } from './connection-status.js';
export type { CallerIdpTokens, IdpToken } from './credentials/caller-tokens.js';
export { CredentialKeyRing } from './credentials/key-ring.js';
export { type CredentialSettings, UpstreamCredentials } from './credentials/store.js';
export type { TokenExchangeConfig } from './credentials/token-exchange.js';
export { McpExecutor } from './executor.js';
export { McpConnectionManager } from './manager.js';
export { type HostRelay, jsonRpcError, type RelayedMessage, type RelayedProgress } from './relay.js';
export type { McpServerConfig } from './rules/mcp-server.js';
export { McpServerService } from './service.js';
export {
  endUpstreamSession,
  openUpstreamSession,
  requestOn,
  type StoredUpstreamSession,
  sessionGone,
  UpstreamStream,
} from './upstream-session.js';
