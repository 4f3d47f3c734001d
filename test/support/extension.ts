import { createClient } from 'graphql-ws';
import { onTestFinished } from 'vitest';
import WebSocket from 'ws';
import { type AppServer, createAppServer } from '../../src/app/server.js';
import type { Services } from '../../src/app/services.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import type { TestDatabase } from './database.js';
import { graphqlOver } from './server-process.js';
import { startServices } from './services.js';

/**
 * One server "process": its own services (dispatcher, journal bus, bridge hub) and HTTP + graphql-ws
 * on a real port. On Postgres each node has its own connections, as separate processes would; on
 * PGlite they share the one embedded database.
 */
export interface Node {
  services: Services;
  server: AppServer;
  url: string;
  gql(token: string, query: string, variables?: Record<string, unknown>): ReturnType<typeof graphqlOver>;
}

export async function startNode(testDb: TestDatabase, ownConnection = false): Promise<Node> {
  let database: Database = testDb.database;
  if (ownConnection && testDb.url) {
    database = await openDatabase({ driver: 'postgres', url: testDb.url, max: 4 });
  }
  const services = await startServices(database, { bridge: { pollMs: 100, connectionLeaseMs: 2_000 } });
  const server = createAppServer(services);
  const address = await server.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${address.port}/graphql`;
  onTestFinished(async () => {
    await server.close();
    await services.stop();
    if (database !== testDb.database) await database.close();
  });
  return {
    services,
    server,
    url,
    gql: (token, query, variables) => graphqlOver(url, token, query, variables),
  };
}

export interface ReceivedInvocation {
  callId: string;
  toolName: string;
  name: string;
  arguments: Record<string, unknown>;
  deadline: string;
  status: string;
}

const SUBSCRIPTION =
  'subscription { extensionInvocations { callId toolName name arguments deadline status } }';

/** A test extension: one graphql-ws connection holding the `extensionInvocations` subscription. */
export class ExtensionClient {
  private readonly client;
  private readonly queue: ReceivedInvocation[] = [];
  private readonly waiting: Array<(i: ReceivedInvocation) => void> = [];
  errors: unknown[] = [];

  constructor(url: string, token: string) {
    this.client = createClient({
      url: url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    this.client.subscribe(
      { query: SUBSCRIPTION },
      {
        next: (value) => {
          const invocation = (value.data as { extensionInvocations: ReceivedInvocation })
            .extensionInvocations;
          const waiter = this.waiting.shift();
          if (waiter) waiter(invocation);
          else this.queue.push(invocation);
        },
        error: (error) => this.errors.push(error),
        complete: () => {},
      },
    );
    onTestFinished(() => this.close());
  }

  /** The next invocation this connection receives. */
  next(): Promise<ReceivedInvocation> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** A query or mutation over this same connection. */
  request<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>) {
    return new Promise<{ data?: T | null; errors?: ReadonlyArray<{ message: string }> }>(
      (resolve, reject) => {
        let result: { data?: T | null; errors?: ReadonlyArray<{ message: string }> } = {};
        this.client.subscribe<T>(
          { query, variables },
          {
            next: (value) => {
              result = value as typeof result;
            },
            error: reject,
            complete: () => resolve(result),
          },
        );
      },
    );
  }

  close(): Promise<void> {
    return this.client.dispose() as Promise<void>;
  }
}
