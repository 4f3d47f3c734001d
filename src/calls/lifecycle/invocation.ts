import type { ToolSpec } from '../../core/tool-spec.js';
import type { Db } from '../../db/client.js';
import type { Executor, Tx } from '../../db/tx.js';
import { appendEvents } from '../../journal/append.js';
import { storeResource } from '../resource-store.js';
import type { RunRow, ToolCallRow } from '../tables.js';
import type { Invocation } from '../tool-contract.js';

/**
 * Where a tool's writes go: their own transactions on the database, or savepoints of the call's
 * transaction for a tool that runs inside it.
 */
export interface WritePlace {
  executor: Executor;
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
}

export const ownTransactions = (db: Db): WritePlace => ({
  executor: db,
  transaction: (work) => db.transaction(work),
});

/**
 * What running a call needs of its row. A call whose tool runs in its transaction is run before
 * its row is written (see in-transaction.ts), so this is the row as it will be written.
 */
export type CallToRun = Pick<
  ToolCallRow,
  'id' | 'runId' | 'name' | 'arguments' | 'timeoutMs' | 'maxOutputTokens' | 'attempts'
>;

/**
 * What a claimed call hands its tool: the run's scope, and writes that land in the call's run
 * (journal events carry the call and the tool as actor; resources are linked to the run).
 */
export function buildInvocation(
  place: WritePlace,
  {
    call,
    run,
    spec,
    signal,
    deadline,
  }: { call: CallToRun; run: RunRow; spec: ToolSpec; signal: AbortSignal; deadline: Date },
): Invocation {
  return {
    callId: call.id,
    run: {
      id: run.id,
      userId: run.userId,
      profileId: run.profileId,
      planNodeId: run.planNodeId,
      chatId: run.chatId,
      workspaceId: run.workspaceId,
    },
    spec,
    arguments: call.arguments as Record<string, unknown>,
    signal,
    deadline,
    transaction: (work) =>
      place.transaction((tx) =>
        work(tx, (events) =>
          appendEvents(
            tx,
            events.map((e) => ({ ...e, runId: run.id, callId: call.id, actor: `tool:${call.name}` })),
          ),
        ),
      ),
    storeResource: (content, mimeType) => storeResource(place.executor, content, mimeType, run.id),
  };
}
