import type { IncomingMessage } from 'node:http';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { GraphQLContext } from './context.js';

/**
 * How much one token may ask of one server process. The counters live in the process's memory:
 * a cluster of N processes lets a token make up to N times as much, which is the price of not
 * putting a shared counter on every request's path.
 */
export interface TransportLimits {
  /** Operations (HTTP requests, graphql-ws operations) one token may start per minute; 0 = no limit. */
  requestsPerMinute: number;
  /** Operations one token may start within any one second, so a minute's allowance is not spent at once. */
  burst: number;
  /** Subscriptions one token may hold open at once (graphql-ws and SSE together); 0 = no limit. */
  subscriptionsPerToken: number;
}

type LimitedContext = GraphQLContext & { request?: Request; req?: IncomingMessage };

/**
 * Whose allowance an operation spends: its token's, or, without a valid token, its client address's,
 * so that guessing secrets is limited too. The socket's own address: behind a proxy every anonymous
 * client shares the proxy's, which fails towards refusing, never towards letting through.
 */
export function limitKey(context: LimitedContext): string {
  if (context.principal) return `token:${context.principal.tokenId}`;
  return `address:${context.req?.socket?.remoteAddress ?? 'unknown'}`;
}

function rateLimited(
  message: string,
  extensions: Record<string, unknown>,
  overHttp: boolean,
  retryAfterMs?: number,
) {
  const http =
    overHttp && retryAfterMs !== undefined
      ? {
          http: {
            status: 429,
            headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
          },
        }
      : {};
  return new GraphQLError(message, {
    extensions: {
      code: 'RATE_LIMITED',
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...extensions,
      ...http,
    },
  });
}

/**
 * Two fixed windows per key stand in for a token bucket: the second's window bounds the burst, the
 * minute's the sustained rate. An operation refused by the second's window spends nothing of the minute's.
 */
export class RequestLimiter {
  private readonly perSecond: RateLimiterMemory | null;
  private readonly perMinute: RateLimiterMemory | null;

  constructor(limits: Pick<TransportLimits, 'requestsPerMinute' | 'burst'>) {
    const on = limits.requestsPerMinute > 0;
    this.perSecond = on
      ? new RateLimiterMemory({ keyPrefix: 'second', points: limits.burst, duration: 1 })
      : null;
    this.perMinute = on
      ? new RateLimiterMemory({ keyPrefix: 'minute', points: limits.requestsPerMinute, duration: 60 })
      : null;
  }

  /** Spends one operation of the key's allowance: null when it may go ahead, else how long to wait. */
  async take(key: string): Promise<{ retryAfterMs: number } | null> {
    if (!this.perSecond || !this.perMinute) return null;
    try {
      await this.perSecond.consume(key);
      await this.perMinute.consume(key);
      return null;
    } catch (error) {
      if (error instanceof RateLimiterRes)
        return { retryAfterMs: Math.max(1, Math.ceil(error.msBeforeNext)) };
      throw error;
    }
  }
}

/** Open subscriptions per key on this process. */
export class SubscriptionCounter {
  private readonly open = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Counts one more subscription for the key, or returns false when it already holds the most allowed. */
  acquire(key: string): boolean {
    const now = this.open.get(key) ?? 0;
    if (this.max > 0 && now >= this.max) return false;
    this.open.set(key, now + 1);
    return true;
  }

  release(key: string): void {
    const now = (this.open.get(key) ?? 1) - 1;
    if (now <= 0) this.open.delete(key);
    else this.open.set(key, now);
  }

  count(key: string): number {
    return this.open.get(key) ?? 0;
  }
}

/**
 * The stream with `release` called exactly once when it ends, whichever way: completed, failed,
 * or closed by the client (return). Envelop's own end hook misses a stream that fails.
 */
function releasing<T>(source: AsyncIterable<T>, release: () => void): AsyncIterableIterator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let released = false;
  const once = () => {
    if (released) return;
    released = true;
    release();
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      try {
        const step = await iterator.next();
        if (step.done) once();
        return step;
      } catch (error) {
        once();
        throw error;
      }
    },
    async return(value?: unknown) {
      once();
      return (await iterator.return?.(value)) ?? { done: true, value: undefined };
    },
    async throw(error?: unknown) {
      once();
      if (iterator.throw) return iterator.throw(error);
      throw error;
    },
  };
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/**
 * Refuses operations over a token's allowance with RATE_LIMITED before they execute, on every
 * transport (HTTP, SSE, graphql-ws), since all of them execute through yoga's envelope. Over plain
 * HTTP the refusal is also a 429 with Retry-After.
 */
export function useTransportLimits(limits: TransportLimits): Plugin<GraphQLContext> {
  const requests = new RequestLimiter(limits);
  const subscriptions = new SubscriptionCounter(limits.subscriptionsPerToken);

  const spend = async (context: LimitedContext) => {
    const wait = await requests.take(limitKey(context));
    if (!wait) return null;
    return rateLimited(
      `too many requests: retry in ${wait.retryAfterMs} ms`,
      {},
      context.request !== undefined,
      wait.retryAfterMs,
    );
  };

  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const refusal = await spend(args.contextValue as LimitedContext);
      if (refusal) setResultAndStopExecution({ errors: [refusal] });
    },
    async onSubscribe({ args, setResultAndStopExecution }) {
      const context = args.contextValue as LimitedContext;
      const refusal = await spend(context);
      if (refusal) {
        setResultAndStopExecution({ errors: [refusal] });
        return;
      }
      const key = limitKey(context);
      if (!subscriptions.acquire(key)) {
        setResultAndStopExecution({
          errors: [
            rateLimited(
              `this token holds ${limits.subscriptionsPerToken} open subscriptions, the most allowed: end one first`,
              { maxSubscriptions: limits.subscriptionsPerToken },
              false,
            ),
          ],
        });
        return;
      }
      return {
        onSubscribeResult({ result, setResult }) {
          if (isAsyncIterable(result)) setResult(releasing(result, () => subscriptions.release(key)));
          else subscriptions.release(key);
        },
      };
    },
  };
}
