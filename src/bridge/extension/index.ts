import type { Principal } from '../../core/auth.js';
import type { Logger } from '../../core/logger.js';
import type { Database } from '../../db/client.js';
import { ExtensionAnswerService } from './answers.js';
import { ExtensionExecutor } from './executor.js';
import { BridgeHub, type BridgeOptions, defaultBridgeOptions } from './hub.js';
import { type InvocationRow, InvocationStore } from './invocations.js';
import { ExtensionToolService } from './tools.js';

export type { BridgeOptions } from './hub.js';
export type { ExtensionConnectionRow, InvocationRow } from './invocations.js';

/** The extension tool bridge of one process: registration, dispatch, answers and connections. */
export class ExtensionBridge {
  readonly tools: ExtensionToolService;
  readonly store: InvocationStore;
  readonly hub: BridgeHub;
  readonly executor: ExtensionExecutor;
  private readonly answers: ExtensionAnswerService;

  constructor(database: Database, logger: Logger, options: Partial<BridgeOptions> = {}) {
    this.tools = new ExtensionToolService(database.db);
    this.store = new InvocationStore(database.db);
    this.hub = new BridgeHub(database, this.store, logger, { ...defaultBridgeOptions, ...options });
    this.executor = new ExtensionExecutor(this.store, this.hub);
    this.answers = new ExtensionAnswerService(database.db);
  }

  start(): Promise<void> {
    return this.hub.start();
  }

  stop(): Promise<void> {
    return this.hub.stop();
  }

  invocations(principal: Principal) {
    return this.hub.invocations(principal);
  }

  answer(callId: string, result: unknown, principal: Principal): Promise<InvocationRow> {
    return this.answers.answer(callId, result, principal);
  }
}
