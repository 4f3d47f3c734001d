import { type ExecutionResult, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Principal } from '../core/auth.js';
import type { GraphQLContext } from './context.js';

/** graphql-ws close code for a socket whose token can no longer be used (4401: unauthorized). */
export const TOKEN_ENDED_CLOSE_CODE = 4401;

type Hold = (end: (reason: string) => void) => () => void;

const isAsyncIterable = (value: unknown): value is AsyncIterable<ExecutionResult> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/**
 * The subscription's stream until its token ends, then one last result with the reason as an
 * UNAUTHENTICATED error, then done. The source is returned (closed) as soon as the token ends.
 */
export function untilTokenEnds(
  source: AsyncIterable<ExecutionResult>,
  hold: Hold,
): AsyncIterableIterator<ExecutionResult> {
  const iterator = source[Symbol.asyncIterator]();
  let reason: string | null = null;
  // Wakes the next() in progress. Not a race against one promise of the token's end: each race
  // would leave a reaction on it, one per event delivered, kept for as long as the token lasts.
  let interrupt: () => void = () => {};
  const release = hold((why) => {
    reason = why;
    interrupt();
  });
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    release();
    // Not awaited: a source may settle its pending next before its return, and nobody waits on it.
    void Promise.resolve(iterator.return?.()).catch(() => {});
  };
  const done = (): IteratorResult<ExecutionResult> => ({ done: true, value: undefined });
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      if (finished) return done();
      if (reason === null) {
        const step = await new Promise<IteratorResult<ExecutionResult> | null>((resolve, reject) => {
          interrupt = () => resolve(null);
          iterator.next().then(resolve, reject);
        });
        interrupt = () => {};
        if (step !== null) {
          if (step.done) {
            finished = true;
            release();
          }
          return step;
        }
      }
      finish();
      const error = new GraphQLError(reason!, { extensions: { code: 'UNAUTHENTICATED' } });
      return { done: false, value: { errors: [error] } };
    },
    async return() {
      finish();
      return done();
    },
    async throw(error: unknown) {
      finish();
      throw error;
    },
  };
}

/**
 * Every subscription, over graphql-ws and SSE alike, is held by the process's TokenWatch under the
 * token it started with, so that revoking or expiring the token ends it within a check interval.
 */
export function useTokenWatch(): Plugin<GraphQLContext> {
  return {
    onSubscribe({ args }) {
      const context = args.contextValue as GraphQLContext;
      const principal = context.principal;
      if (!principal) return;
      return {
        onSubscribeResult({ result, setResult }) {
          if (!isAsyncIterable(result)) return;
          setResult(untilTokenEnds(result, (end) => context.services.tokenWatch.hold(principal, end)));
        },
      };
    },
  };
}

/** A socket's closing handle, as graphql-ws's `ws` adapter gives it. */
interface ClosableSocket {
  close(code: number, reason: string): void;
  once(event: 'close', listener: () => void): unknown;
}

/**
 * Closes a graphql-ws socket authenticated by `principal` (4401, the reason) when its token ends.
 * Shortly after, so that the streams' own last errors, ended in the same check, go out first.
 */
export function closeWhenTokenEnds(
  services: GraphQLContext['services'],
  principal: Principal,
  socket: ClosableSocket,
): void {
  const release = services.tokenWatch.hold(principal, (reason) => {
    setTimeout(() => socket.close(TOKEN_ENDED_CLOSE_CODE, reason), 100).unref();
  });
  socket.once('close', release);
}
