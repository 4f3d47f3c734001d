import { Client, cacheExchange, fetchExchange, subscriptionExchange } from 'urql';
import type { Connection, OnConnected } from './connection';

export const GRAPHQL_ENDPOINT = '/graphql';

/**
 * urql over this page's connection: queries and mutations over HTTP with the token in the
 * Authorization header, subscriptions over the live link. An operation's context may carry
 * `onConnected`, which the link calls whenever that subscription's stream starts again.
 */
export function createUrqlClient(token: string, connection: Connection): Client {
  return new Client({
    url: GRAPHQL_ENDPOINT,
    fetchOptions: () => ({ headers: { authorization: `Bearer ${token}` } }),
    requestPolicy: 'cache-and-network',
    exchanges: [
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request, operation) => ({
          subscribe: (sink) => ({
            unsubscribe: connection.subscribe(
              {
                query: request.query ?? '',
                operationName: request.operationName ?? null,
                variables: request.variables ?? {},
              },
              {
                next: (value) => sink.next(value as never),
                error: (error) => sink.error(error),
                complete: () => sink.complete(),
              },
              operation.context.onConnected as OnConnected | undefined,
            ),
          }),
        }),
      }),
    ],
  });
}
