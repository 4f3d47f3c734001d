import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import type { ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { closeWhenTokenEnds } from '../graphql/token-watch.js';
import { bearerSecret, createGraphQLHandler, type Yoga } from '../graphql/yoga.js';
import type { Services } from './services.js';

export interface AppServer {
  yoga: Yoga;
  http: Server;
  listen(port: number, host: string): Promise<AddressInfo>;
  close(): Promise<void>;
}

export interface AppServerOptions {
  maxBodyBytes?: number;
}

type EnvelopedArgs = ExecutionArgs & {
  rootValue: { execute: (a: ExecutionArgs) => unknown; subscribe: (a: ExecutionArgs) => unknown };
};

async function health(services: Services, res: ServerResponse): Promise<void> {
  try {
    await services.database.db.execute(sql`select 1`);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
  } catch (error) {
    services.logger.warn({ err: error }, 'health check failed');
    res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'unavailable' }));
  }
}

function declaredLengthProblem(req: IncomingMessage, maxBodyBytes: number): 411 | 413 | null {
  if (req.method !== 'POST') return null;
  const length = req.headers['content-length'];
  // Without a declared length the body could be unbounded; clients of this API always know theirs.
  if (length === undefined) return req.headers['transfer-encoding'] ? 411 : null;
  return Number(length) > maxBodyBytes ? 413 : null;
}

/**
 * Answers before reading the body, then drains a bounded amount of it so that the client, still
 * sending, reads the status instead of a reset connection. Past the bound the socket is dropped.
 */
function refuseBody(
  req: IncomingMessage,
  res: ServerResponse,
  status: 411 | 413,
  maxBodyBytes: number,
): void {
  let drained = 0;
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > 16 * maxBodyBytes) req.destroy();
  });
  req.on('end', () => {
    res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
    res.end(
      JSON.stringify({
        errors: [{ message: `request body must declare a length of at most ${maxBodyBytes} bytes` }],
      }),
    );
  });
}

export function createAppServer(services: Services, options: AppServerOptions = {}): AppServer {
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const yoga = createGraphQLHandler(services);
  const http = createServer((req, res) => {
    if (req.url === '/health' && req.method === 'GET') {
      void health(services, res);
      return;
    }
    const problem = declaredLengthProblem(req, maxBodyBytes);
    if (problem) {
      refuseBody(req, res, problem, maxBodyBytes);
      return;
    }
    void yoga.requestListener(req, res);
  });

  // The same bound as an HTTP body: an extension answering over graphql-ws sends no more than over POST.
  const wss = new WebSocketServer({ server: http, path: yoga.graphqlEndpoint, maxPayload: maxBodyBytes });
  const wsServer = useServer(
    {
      execute: (args) => (args as EnvelopedArgs).rootValue.execute(args) as never,
      subscribe: (args) => (args as EnvelopedArgs).rootValue.subscribe(args) as never,
      // The token is checked once, at connection_init; a connection without a valid one is closed (4403).
      onConnect: async (ctx) => {
        const secret = bearerSecret(
          ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization,
        );
        const outcome = secret === null ? null : await services.tokens.authenticate(secret);
        if (outcome && 'principal' in outcome)
          closeWhenTokenEnds(services, outcome.principal, ctx.extra.socket);
        return outcome !== null && 'principal' in outcome;
      },
      onSubscribe: async (ctx, _id, params) => {
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
          connectionParams: ctx.connectionParams,
        });
        const args = {
          schema,
          operationName: params.operationName,
          document: parse(params.query),
          variableValues: params.variables,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe },
        };
        const errors = validate(args.schema, args.document);
        return errors.length > 0 ? errors : args;
      },
    },
    wss,
  );

  return {
    yoga,
    http,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        http.once('error', reject);
        http.listen(port, host, () => resolve(http.address() as AddressInfo));
      }),
    async close() {
      await wsServer.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
