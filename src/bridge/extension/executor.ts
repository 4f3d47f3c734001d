import type { Invocation, ToolExecutor, ToolOutput } from '../../calls/tool-contract.js';
import { callTimedOut } from '../../core/call-results.js';
import type { Unavailability } from '../../core/policy.js';
import { RecoverableToolError } from '../../core/tool-errors.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import type { BridgeHub } from './hub.js';
import type { InvocationRow, InvocationStore } from './invocations.js';
import { parseExtensionToolName } from './rules/extension-tool.js';

const FALLBACK_TIMEOUT_MS = 60_000;

/**
 * Seed §13: "frontend bridge asks extension to execute". Runs an EXTENSION tool by handing the call
 * to the extension's subscription (in whichever process holds it) and waiting, here, for the row
 * to be answered, timed out, abandoned by a disconnect, or cancelled.
 */
export class ExtensionExecutor implements ToolExecutor {
  constructor(
    private readonly store: InvocationStore,
    private readonly hub: BridgeHub,
  ) {}

  canExecute(spec: ToolSpec): boolean {
    return spec.source === 'EXTENSION' && parseExtensionToolName(spec.name) !== null;
  }

  /** An extension tool runs only while a client of its extension is subscribed, in any process. */
  async unavailable(specs: readonly ToolSpec[]): Promise<ReadonlyMap<string, Unavailability>> {
    const ids = specs.map((spec) => parseExtensionToolName(spec.name)!.extensionId);
    const connected = await this.store.connectedAmong([...new Set(ids)]);
    const result = new Map<string, Unavailability>();
    for (const [i, spec] of specs.entries()) {
      if (connected.has(ids[i]!)) continue;
      result.set(spec.name, {
        code: 'extension_not_connected',
        reason: `its extension ${ids[i]} is not connected to any server process`,
      });
    }
    return result;
  }

  async execute(invocation: Invocation): Promise<ToolOutput> {
    const { extensionId, localName } = parseExtensionToolName(invocation.spec.name)!;
    const name = invocation.spec.name;
    const started = Date.now();
    const totalMs = invocation.deadline ? invocation.deadline.getTime() - started : FALLBACK_TIMEOUT_MS;
    // The dispatcher's deadline, decided by the same conditional update an answer races against:
    // exactly one wins, and the dispatcher waits for the outcome after it aborts the call.
    const deadline = started + totalMs;
    const wake = this.hub.wake(invocation.callId, extensionId);
    const onAbort = () => wake.poke();
    invocation.signal.addEventListener('abort', onAbort);
    try {
      const created = await this.store.create({
        callId: invocation.callId,
        runId: invocation.run.id,
        extensionId,
        toolName: name,
        localName,
        arguments: invocation.arguments,
        deadline: new Date(deadline),
      });
      if (!created) {
        throw new RecoverableToolError(
          'extension_not_connected',
          `The tool ${name} is provided by the extension ${extensionId}, which is not connected, so it cannot run now. Continue without it or try again later.`,
        );
      }
      for (;;) {
        if (invocation.signal.aborted) {
          const timedOut = (invocation.signal.reason as Error | undefined)?.name === 'TimeoutError';
          await this.store.settle(invocation.callId, timedOut ? 'TIMED_OUT' : 'CANCELLED');
          // An answer that committed first wins; the dispatcher waits briefly for exactly this.
          const settled = (await this.store.get(invocation.callId))!;
          if (settled.status === 'ANSWERED') return outcome(settled, name, extensionId, totalMs);
          throw invocation.signal.reason;
        }
        const row = (await this.store.get(invocation.callId))!;
        if (row.status !== 'PENDING') return outcome(row, name, extensionId, totalMs);
        if (Date.now() >= deadline) {
          await this.store.settle(invocation.callId, 'TIMED_OUT');
          continue;
        }
        if (!(await this.store.connected(extensionId))) {
          await this.store.settle(invocation.callId, 'DISCONNECTED');
          continue;
        }
        await wake.next(deadline - Date.now());
      }
    } finally {
      invocation.signal.removeEventListener('abort', onAbort);
      wake.dispose();
    }
  }
}

function outcome(row: InvocationRow, name: string, extensionId: string, totalMs: number): ToolOutput {
  switch (row.status) {
    case 'ANSWERED': {
      const answer = row.answer!;
      return {
        content: answer.content,
        structured: answer.structured === null ? undefined : answer.structured,
        isError: answer.isError,
      };
    }
    case 'TIMED_OUT': {
      const error = callTimedOut(name, totalMs);
      throw new RecoverableToolError(error.code, error.message);
    }
    case 'DISCONNECTED':
      throw new RecoverableToolError(
        'extension_disconnected',
        `The extension ${extensionId} disconnected before it answered the call to ${name}; it may or may not have acted on it.`,
      );
    default:
      throw new RecoverableToolError('cancelled', `The call to ${name} was cancelled before it finished.`);
  }
}
