import { type Client, createClient } from 'graphql-ws';
import { onTestFinished } from 'vitest';
import WebSocket from 'ws';
import { type AppServerOptions, createAppServer } from '../../src/app/server.js';
import { dbTest } from './fixtures.js';

/**
 * `dbTest` plus `serve`: the real HTTP + graphql-ws server over the test's services on a free
 * port, with the given options (limits, allowed origins); closed when the test ends.
 */
export const serverTest = dbTest.extend<{ serve: (options?: AppServerOptions) => Promise<string> }>({
  serve: async ({ services }, use) => {
    const closing: Array<() => Promise<void>> = [];
    await use(async (options = {}) => {
      const server = createAppServer(services, options);
      const address = await server.listen(0, '127.0.0.1');
      closing.push(() => server.close());
      return `http://127.0.0.1:${address.port}/graphql`;
    });
    for (const close of closing) await close();
  },
});

/** A graphql-ws client of the server at `url` that sends `connectionParams` in connection_init. */
export function wsClient(url: string, connectionParams?: Record<string, unknown>): Client {
  const client = createClient({
    url: url.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
  });
  onTestFinished(() => client.dispose() as Promise<void>);
  return client;
}

export interface WsRequest {
  query: string;
  variables?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
}

/** The first result of an operation over the client; it rejects with the CloseEvent when the socket closes. */
export async function firstResult(client: Client, request: WsRequest) {
  const iterator = client.iterate<Record<string, unknown>>(request)[Symbol.asyncIterator]();
  try {
    const step = await iterator.next();
    return step.value;
  } finally {
    await iterator.return?.();
  }
}
