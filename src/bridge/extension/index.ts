import type { Principal } from '../../core/auth.js';
import type { ExtensionAnswerService } from './answers.js';
import type { ExtensionExecutor } from './executor.js';
import type { BridgeHub } from './hub.js';
import type { InvocationRow, InvocationStore } from './invocations.js';
import type { ExtensionToolService } from './tools.js';

export { ExtensionAnswerService } from './answers.js';
export { ExtensionExecutor } from './executor.js';
export type { BridgeOptions } from './hub.js';
export { BridgeHub, defaultBridgeOptions } from './hub.js';
export type { ExtensionConnectionRow, InvocationRow } from './invocations.js';
export { InvocationStore } from './invocations.js';
export { ExtensionToolService } from './tools.js';

/** The extension tool bridge of one process: registration, dispatch, answers and connections. */
export class ExtensionBridge {
  readonly tools: ExtensionToolService;
  readonly store: InvocationStore;
  readonly hub: BridgeHub;
  readonly executor: ExtensionExecutor;
  private readonly answers: ExtensionAnswerService;

  constructor(parts: {
    tools: ExtensionToolService;
    store: InvocationStore;
    hub: BridgeHub;
    executor: ExtensionExecutor;
    answers: ExtensionAnswerService;
  }) {
    this.tools = parts.tools;
    this.store = parts.store;
    this.hub = parts.hub;
    this.executor = parts.executor;
    this.answers = parts.answers;
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
