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

/** Per source event, the results already executed for it, by sharing key; gone with the event. */
const resultsOf = new WeakMap<object, Map<string, Result>>();
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
  const resultOf = (event: unknown): Result => {
    if (typeof event !== 'object' || event === null) return execute({ ...args, rootValue: event });
    let results = resultsOf.get(event);
    if (!results) {
      results = new Map();
      resultsOf.set(event, results);
    }
    let result = results.get(key);
    if (!result) {
      result = execute({ ...args, rootValue: event });
      results.set(key, result);
    }
    return result;
  };
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
