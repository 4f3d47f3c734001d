/**
 * The call lifecycle as other modules see it: runs, the registry and policy, requesting and deciding
 * calls, dispatch, and the read rules for what runs own. Tools see the lifecycle only through
 * tool-contract.ts and tool-kit.ts; tables.ts and the GraphQL types in graphql/ are imported from the
 * files that define them (a table is named where it is declared, and Pothos types from their file).
 */
export { type ApprovalQueueEvent, ApprovalQueueService } from './approval-queue.js';
export { ToolAvailability } from './availability.js';
export { ApprovalBatchService } from './batches.js';
export { runDefaultsCommands } from './cli.js';
export { JournalAccess } from './journal-access.js';
export { BuiltInExecutor } from './lifecycle/built-in-executor.js';
export { MAX_ARGUMENT_BYTES } from './lifecycle/call-records.js';
export { Dispatcher, type DispatcherOptions, defaultDispatcherOptions } from './lifecycle/dispatcher.js';
export { readableCall } from './lifecycle/readable-call.js';
export { MAX_PROVIDER_CALL_ID_LENGTH } from './lifecycle/request.js';
export { ToolCallService } from './lifecycle/tool-call-service.js';
export { PolicyService } from './policy-service.js';
export { RegistryService, specOf } from './registry-service.js';
export { mayReadOwned, ownedScope, ownerUserIdSchema, readAccess } from './resource-access.js';
export { readRunResource } from './resource-store.js';
export { ProfileRunDefaultsService } from './run-defaults-service.js';
export {
  assertMayRead,
  createRunInputSchema,
  openCallStatuses,
  RunService,
  runScope,
} from './run-service.js';
