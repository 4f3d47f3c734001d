import {
  createSourceEventStream,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  GraphQLError,
  getOperationAST,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Principal } from '../core/auth.js';
import type { GraphQLContext } from './context.js';

/**
 * Subscription fields whose events are objects handed to every subscriber (the journal bus's) and
 * whose selections resolve from the event alone: one event is executed once per distinct
 * (document, operation, variables, what the principal may see), not once per subscriber.
 */
const SHARED_FIELDS = new Set(['journalEvents']);

type Result = ExecutionResult | Promise<ExecutionResult>;

/** An event's result for one sharing key, and its graphql-ws `next` payload once serialized. */
interface Shared {
  result: Result;
  json: string | null;
}

/** Per source event, the results already executed for it, by sharing key; gone with the event. */
const resultsOf = new WeakMap<object, Map<string, Shared>>();
const documentIds = new WeakMap<DocumentNode, number>();
let nextDocumentId = 0;

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/**
 * What decides a principal's view of an event's fields: its role and bindings (scope checks run
 * with the context of whichever subscriber executes first). Not the token: dashboards of one
 * role and scope share.
 */
function sight(principal: Principal | null): string {
  if (!principal) return '';
  const { role, userId, users, extensionId, legacyUnbound } = principal;
  return JSON.stringify([role, userId, users, extensionId, legacyUnbound]);
}

function sharingKey(args: ExecutionArgs): string | null {
  const operation = getOperationAST(args.document, args.operationName);
  const selections = operation?.selectionSet.selections ?? [];
  const shared =
    selections.length === 1 &&
    selections[0]!.kind === 'Field' &&
    SHARED_FIELDS.has(selections[0]!.name.value);
  if (!shared) return null;
  let id = documentIds.get(args.document);
  if (id === undefined) {
    id = nextDocumentId++;
    documentIds.set(args.document, id);
  }
  const context = args.contextValue as GraphQLContext;
  return JSON.stringify([
    id,
    args.operationName ?? null,
    args.variableValues ?? null,
    sight(context.principal),
  ]);
}

/** The subscription's events, each executed once per sharing key (see SHARED_FIELDS). */
function sharedResults(
  source: AsyncIterable<unknown>,
  args: ExecutionArgs,
  key: string,
): AsyncIterableIterator<ExecutionResult> {
  const iterator = source[Symbol.asyncIterator]();
  const operation = getOperationAST(args.document, args.operationName)!;
  const sharedOf = (event: object): Shared => {
    let results = resultsOf.get(event);
    if (!results) {
      results = new Map();
      resultsOf.set(event, results);
    }
    let shared = results.get(key);
    if (!shared) {
      shared = { result: execute({ ...args, rootValue: event }), json: null };
      results.set(key, shared);
    }
    return shared;
  };
  const resultOf = (event: unknown): Result =>
    typeof event === 'object' && event !== null
      ? sharedOf(event).result
      : execute({ ...args, rootValue: event });
  divertToSocket(source, args.contextValue as SocketContext, sharedOf);
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      let step: IteratorResult<unknown>;
      try {
        step = await iterator.next();
      } catch (error) {
        // As graphql's own mapping does: the stream's error, located at the operation.
        const original = error instanceof Error ? error : new Error(String(error));
        throw new GraphQLError(original.message, { originalError: original, nodes: [operation] });
      }
      if (step.done) return { done: true, value: undefined };
      return { done: false, value: await resultOf(step.value) };
    },
    async return() {
      await iterator.return?.();
      return { done: true, value: undefined };
    },
    async throw(error: unknown) {
      await iterator.return?.();
      throw error;
    },
  };
}

/** A graphql-ws subscription's socket and id, as server.ts puts them in the context. */
interface SocketContext {
  socket?: { readonly readyState: number; readonly bufferedAmount: number; send(data: string): void };
  subscriptionId?: string;
}

/** A stream that can hand its values to a sink instead of its reader (the journal's Feed). */
interface Divertible {
  divert(sink: (value: object) => boolean): void;
}

const OPEN = 1;
/**
 * Bytes a socket may hold unsent before its events go the reader's way again, which waits for each
 * write: a slow client then backs up into its subscription's bounded queue, as without the sink.
 */
const SOCKET_BACKLOG = 64 * 1024;

/**
 * Over graphql-ws, a shared subscription's events skip the per-subscriber path (the iterators of
 * every plugin, graphql-ws's message building and its wait for each write): the `next` payload is
 * serialized once per event and sharing key and written to each socket with its subscription id.
 * A result with errors, or one still executing, takes the ordinary path, whose plugins mask errors.
 */
function divertToSocket(source: unknown, context: SocketContext, sharedOf: (event: object) => Shared): void {
  const { socket, subscriptionId } = context;
  if (!socket || subscriptionId === undefined || typeof (source as Partial<Divertible>).divert !== 'function')
    return;
  const head = `{"id":${JSON.stringify(subscriptionId)},"type":"next","payload":`;
  (source as Divertible).divert((event) => {
    if (socket.bufferedAmount > SOCKET_BACKLOG) return false;
    const shared = sharedOf(event);
    if (shared.json === null) {
      if (shared.result instanceof Promise || shared.result.errors) return false;
      shared.json = JSON.stringify(shared.result);
    }
    // As graphql-ws does for a socket already closing: the message is dropped.
    if (socket.readyState === OPEN) socket.send(`${head}${shared.json}}`);
    return true;
  });
}

/** Executes a shared subscription's events once for all subscribers with the same sharing key. */
export function useSharedSubscriptionResults(): Plugin<GraphQLContext> {
  return {
    onSubscribe({ args, setSubscribeFn }) {
      const key = sharingKey(args);
      if (key === null) return;
      setSubscribeFn(async (subscribeArgs) => {
        const source = await createSourceEventStream(subscribeArgs);
        return isAsyncIterable(source) ? sharedResults(source, subscribeArgs, key) : source;
      });
    },
  };
}
