/**
 * Every table, for drizzle-kit (drizzle.config.ts) and for code that needs tables of several
 * modules at once. Each module owns its tables in its own `tables.ts`.
 */
// biome-ignore-all lint/performance/noReExportAll: drizzle-kit generates migrations for what this file exports; re-exporting each tables.ts whole means a new table cannot be left out of its migration by a forgotten name.
export * from '../bridge/extension/tables.js';
export * from '../bridge/mcp/tables.js';
export * from '../calls/tables.js';
export * from '../features/agent/tables.js';
export * from '../features/chat/tables.js';
export * from '../features/gateway/tables.js';
export * from '../features/grants/tables.js';
export * from '../features/identity/tables.js';
export * from '../features/models/tables.js';
export * from '../features/notifications/tables.js';
export * from '../features/skill/tables.js';
export * from '../features/tokens/tables.js';
export * from '../features/workspace/tables.js';
export * from '../features/worldinfo/tables.js';
export * from '../journal/tables.js';
export * from '../model/tables.js';
