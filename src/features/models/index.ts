/** Model connections as other modules see them: configuration, and the HTTP client that calls them. */
export { modelConnectionCommands } from './cli.js';
export type { ModelConnection, WireFormat } from './connection-input.js';
export { type ModelCallOptions, type ModelCallResult, ProviderClient } from './http/client.js';
export { ModelRequestError, type ModelRequestFailureKind } from './http/errors.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './http/retry.js';
export type { ModelDelta } from './http/stream-events.js';
export type { ModelUsage } from './http/usage.js';
export { wireRequest } from './http/wire.js';
export { ModelConnectionService } from './service.js';
