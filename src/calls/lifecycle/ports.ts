import type { Principal } from '../../core/auth.js';
import type { GrantRequest } from '../../core/grant.js';
import type { NewJournalEvent } from '../../core/journal-event.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import type { Db } from '../../db/client.js';
import type { Tx } from '../../db/tx.js';
import type { PolicyService } from '../policy-service.js';
import type { RegistryService } from '../registry-service.js';
import type { RunService } from '../run-service.js';
import type { RunRow, ToolCallRow } from '../tables.js';
import type { Ran, WriteRan } from './in-transaction.js';
import type { CallToRun } from './invocation.js';

/**
 * What the lifecycle calls out to and the composition root supplies: dispatch, decision checks
 * (one-time links) and scoped grants live in other modules, which the lifecycle must not import.
 */

/** Called after a decision so that approved calls start at once in this process. */
export type DispatchHook = (callId: string) => Promise<ToolCallRow | null>;

/**
 * The dispatcher's side of a call that runs in the transaction that made it ready (its tool
 * `runsInTransaction`): the request or the approval, its start, its tool and its result commit once.
 */
export interface InlineDispatch {
  runsInTransaction(spec: ToolSpec): boolean;
  startedEvent(call: CallToRun): NewJournalEvent;
  /**
   * Runs a ready call in `tx`, which holds its run's row lock (and the call's, if it has a row),
   * and writes its row once, through `write`, with its start and its result.
   */
  runIn(tx: Tx, run: RunRow, call: CallToRun, spec: ToolSpec, write: WriteRan): Promise<Ran>;
}

/**
 * The dispatcher's side of a call its requester runs at once: the request's own transaction
 * writes it already STARTED under this process's lease (a crash after that commit leaves a call
 * lease recovery handles like any claimed one), and it runs here right after the commit, with no
 * read of its row and no claim transaction.
 */
export interface EagerDispatch {
  /** The columns of a call started here now, under this process's lease. */
  startColumns(now: Date): {
    status: 'STARTED';
    leaseOwner: string;
    leaseExpiresAt: Date;
    startedAt: Date;
  };
  startedEvent(call: CallToRun): NewJournalEvent;
  /**
   * Runs a committed call that was started with `startColumns`, returning it finished; `run` is
   * its run as the request read it, which the tool's invocation is given without reading it again.
   */
  runStarted(call: ToolCallRow, run: RunRow): Promise<ToolCallRow | null>;
}

/**
 * Checks a decision may count, in its transaction once the call is locked and still pending
 * (a one-time link is used up here); throwing refuses the decision and records nothing.
 */
export type DecisionHook = (
  tx: Tx,
  call: ToolCallRow,
  input: { link?: string | null },
  principal: Principal,
) => Promise<void>;

/** Scoped grants, given by the composition root: the lifecycle cannot import the feature that keeps them. */
export interface GrantPort {
  /** Saves what an approval grants, in the approval's transaction: a refusal undoes the approval. */
  create(tx: Tx, call: ToolCallRow, request: GrantRequest, principal: Principal): Promise<unknown>;
  /** The active RUN grant of the run that covers this call (the tool, and its conditions on these arguments). */
  standing(
    tx: Tx,
    runId: string,
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ id: string; createdBy: string } | null>;
  /**
   * After the approval's transaction has committed: waits until every process has heard of the
   * policy rule an ALWAYS grant saved in it, so the approver's next call anywhere obeys it.
   */
  settle(tx: Tx): Promise<void>;
}

/**
 * Every port the lifecycle calls out to, all required: the composition root plugs them in one call,
 * at assembly, so a root that forgets one does not compile (rather than start with a port that
 * silently does nothing).
 */
export interface LifecyclePorts {
  /** Starts a ready call at once in this process (the dispatcher). */
  dispatch: DispatchHook;
  /** Runs a call whose tool works in this database in the transaction that made it ready (the dispatcher). */
  inline: InlineDispatch;
  /** Starts a ready call in its request's transaction and runs it right after (the dispatcher). */
  eager: EagerDispatch;
  /** Checks a decision may count (one-time links, the notifications feature). */
  decided: DecisionHook;
  /** Saves and finds scoped grants (the grants feature). */
  grants: GrantPort;
}

/** What the request and decision steps share: the lifecycle's services and its ports. */
export interface LifecycleContext {
  db: Db;
  runs: RunService;
  registry: RegistryService;
  policy: PolicyService;
  ports: LifecyclePorts;
}
