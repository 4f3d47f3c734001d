import type { NewJournalEvent } from '../core/journal-event.js';
import type { Unavailability } from '../core/policy.js';
import type { ContentPart, ToolUsage } from '../core/tool-result.js';
import type { ToolSpec } from '../core/tool-spec.js';
import type { Tx } from '../db/tx.js';

/** The run a call belongs to, as a tool needs it. */
export interface RunScope {
  id: string;
  userId: string | null;
  profileId: string | null;
  planNodeId: string | null;
  chatId: string | null;
  workspaceId: string | null;
}

export interface StoredResource {
  uri: string;
  sha256: string;
  mimeType: string;
  size: number;
}

/**
 * Everything a tool may use while it runs. The same shape serves built-in, extension and MCP tools.
 * There is no database handle here: a tool family gets the services it needs when it is built
 * (app/services.ts), and writes that must commit with the call go through `transaction`.
 */
export interface Invocation {
  callId: string;
  run: RunScope;
  spec: ToolSpec;
  arguments: Record<string, unknown>;
  /** Aborted on timeout, on run cancellation and on shutdown. */
  signal: AbortSignal;
  /** When the call times out; `progress()` moves it. */
  deadline: Date | null;
  /**
   * The tool is alive and working (an MCP server reported progress): the timeout starts again,
   * up to the dispatcher's maximum total time for a call.
   */
  progress?(): void;
  /**
   * Runs `work` in one transaction; events given to `journal` commit with its writes or not at
   * all (a workspace write, its checkpoint and its journal event are one commit).
   */
  transaction<T>(
    work: (
      tx: Tx,
      journal: (events: Omit<NewJournalEvent, 'runId' | 'callId' | 'actor'>[]) => Promise<void>,
    ) => Promise<T>,
  ): Promise<T>;
  /** Stores bytes once by content hash and links them to this run, so whoever reads the run may read them. */
  storeResource(content: Buffer, mimeType: string): Promise<StoredResource>;
}

/** What a tool returns. Throw RecoverableToolError or SystemFailure for failures. */
export interface ToolOutput {
  content: ContentPart[];
  structured?: unknown;
  /** A result the tool itself marks as an error (MCP `isError`): the call completes, the model reads it. */
  isError?: boolean;
  usage?: ToolUsage;
  /** The tool ends the run successfully (workspace.finish). */
  completeRun?: boolean;
}

export interface ToolExecutor {
  canExecute(spec: ToolSpec): boolean;
  /**
   * Of the tools this executor runs, the ones that cannot run now anywhere (their MCP server or
   * extension not connected to any process), with why; the rest are left out. Without it, every
   * tool it can execute counts as runnable.
   */
  unavailable?(specs: readonly ToolSpec[]): Promise<ReadonlyMap<string, Unavailability>>;
  execute(invocation: Invocation): Promise<ToolOutput>;
  /**
   * The tool's effects are rows in this database and nothing else: it runs inside its call's
   * transaction, so a crash leaves either no effect (the call is dispatched again) or a completed
   * call, never an `interrupted` one. Without it, a tool's effects count as external.
   */
  runsInTransaction?(spec: ToolSpec): boolean;
}

/** A tool defined in code: its spec and the function that runs it. */
export interface BuiltInTool {
  spec: Omit<ToolSpec, 'source' | 'enabled'>;
  run(invocation: Invocation): Promise<ToolOutput>;
  /**
   * Everything it reads and writes is in this database, through services built on the
   * composition root's ambient handle (see db/ambient.ts): it runs in its call's transaction.
   */
  inDatabase?: boolean;
}
