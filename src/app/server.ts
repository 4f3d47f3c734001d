import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import type { ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { type ConsoleSignIn, createConsoleHandler, setPageHeaders } from '../features/console/index.js';
import { GatewayHttp } from '../features/gateway/index.js';
import {
  type MetricsAccess,
  observeHttp,
  requestIdFrom,
  serveMetrics,
} from '../features/observability/index.js';
import { closeWhenTokenEnds } from '../graphql/token-watch.js';
import {
  bearerSecret,
  connectionAuthorization,
  createGraphQLHandler,
  type GraphQLHandlerOptions,
  refusalOf,
  type Yoga,
} from '../graphql/yoga.js';
import type { Services } from './services.js';

export interface AppServer {
  yoga: Yoga;
  http: Server;
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Ends every graphql-ws socket (1001 with the reason) and SSE stream; other requests go on. */
  closeSubscriptions(reason: string): void;
  close(): Promise<void>;
}

/** Limits and allowed origins come from the configuration (startApp); tests leave them out. */
export interface AppServerOptions extends GraphQLHandlerOptions {
  /** MAX_BODY_BYTES: larger request bodies get 413 before they are read; 1 MiB when absent. */
  maxBodyBytes?: number;
  /** The built console to serve at `/` and `/console` (console/dist by default). */
  consoleDir?: string;
  /** How the console signs people in with the company's IdP; absent: pasted API tokens only. */
  consoleSignIn?: ConsoleSignIn | null;
  /** Who may read /metrics here; absent when it is served on a port of its own (METRICS_PORT). */
  metrics?: MetricsAccess;
  /** True once shutdown began: requests get 503 and /health says draining. */
  draining?: () => boolean;
  /** PUBLIC_URL: the base of the MCP gateway's links and resource metadata. */
  publicUrl?: string;
}

/**
 * How long an idle keep-alive socket stays open. Node's 5 s default is shorter than clients keep
 * theirs (undici 4 s less its margin, a load balancer's pool 60 s): a client that sends its next
 * request just as the server closes the socket gets the connection reset under it. The server has to
 * be the side that waits longest, so a client's own timeout always ends an idle socket first.
 */
const KEEP_ALIVE_MS = 65_000;

type EnvelopedArgs = ExecutionArgs & {
  rootValue: { execute: (a: ExecutionArgs) => unknown; subscribe: (a: ExecutionArgs) => unknown };
};

/**
 * Browsers do not apply CORS to WebSockets, so the upgrade checks the origin itself, by the same
 * rule: a page of this server or of an allowed origin may open a socket; a client that is not a
 * browser sends no Origin and is not asked.
 */
function socketOriginAllowed(
  origin: string | undefined,
  host: string | undefined,
  allowed: readonly string[],
) {
  if (!origin) return true;
  if (allowed.includes(origin)) return true;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

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
 * Never reads the body into memory: it is drained and thrown away, and the answer goes out when it
 * ends, so that a client still sending reads the status instead of a reset connection, whatever the
 * size. The server's requestTimeout bounds how long a drain may take.
 */
function refuseBody(
  req: IncomingMessage,
  res: ServerResponse,
  status: 411 | 413,
  maxBodyBytes: number,
): void {
  const message =
    status === 413
      ? `request body of ${req.headers['content-length']} bytes is larger than this server's limit of ${maxBodyBytes} bytes (MAX_BODY_BYTES); send less per request`
      : `request body must declare its length (Content-Length), at most ${maxBodyBytes} bytes`;
  req.resume();
  req.on('end', () => {
    res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
    res.end(
      JSON.stringify({
        errors: [
          {
            message,
            extensions: { code: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'LENGTH_REQUIRED', maxBodyBytes },
          },
        ],
      }),
    );
  });
}

export function createAppServer(services: Services, options: AppServerOptions = {}): AppServer {
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const yoga = createGraphQLHandler(services, options);
  const serveStatic = createConsoleHandler({
    ...(options.consoleDir ? { dir: options.consoleDir } : {}),
    signIn: options.consoleSignIn ?? null,
  });
  const streams = new Set<ServerResponse>();
  const gateway = new GatewayHttp(
    {
      ...services.gateway,
      policy: services.policy,
      registry: services.registry,
      identity: services.identity,
      tokenWatch: services.tokenWatch,
      connections: services.mcpConnections,
      logger: services.logger,
    },
    { allowedOrigins: options.allowedOrigins ?? [], maxBodyBytes, publicUrl: options.publicUrl },
  );
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/health' && req.method === 'GET') {
      void health(services, res);
      return;
    }
    if (options.metrics && req.url?.split('?')[0] === '/metrics' && req.method === 'GET') {
      void serveMetrics(services.metrics, options.metrics, req, res);
      return;
    }
    if (req.headers.accept?.includes('text/event-stream')) {
      streams.add(res);
      res.once('close', () => streams.delete(res));
    }
    // Before GraphQL and the console: MCP answers its own errors (JSON-RPC, 401 with resource metadata, 413).
    if (gateway.handles(req.url?.split('?')[0] ?? '/')) {
      void gateway.handle(req, res).catch((error: unknown) => {
        services.logger.error({ err: error }, 'MCP gateway request failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end();
      });
      return;
    }
    if (serveStatic(req, res)) return;
    // GraphiQL's page is yoga's answer to a browser's GET of the endpoint: the console's policy too.
    if (req.method === 'GET' && req.headers.accept?.includes('text/html')) setPageHeaders(res);
    const problem = declaredLengthProblem(req, maxBodyBytes);
    if (problem) {
      refuseBody(req, res, problem, maxBodyBytes);
      return;
    }
    void yoga.requestListener(req, res);
  };
  const http = createServer(
    observeHttp(
      { logger: services.logger, metrics: services.metrics, draining: options.draining ?? (() => false) },
      listener,
    ),
  );
  http.keepAliveTimeout = KEEP_ALIVE_MS;

  // The same bound as an HTTP body: an extension answering over graphql-ws sends no more than over POST.
  const wss = new WebSocketServer({
    server: http,
    path: yoga.graphqlEndpoint,
    maxPayload: maxBodyBytes,
    verifyClient: ({ origin, req }: { origin: string | undefined; req: IncomingMessage }) =>
      socketOriginAllowed(origin, req.headers.host, options.allowedOrigins ?? []),
  });
  wss.on('headers', (headers, req) => {
    headers.push(`x-request-id: ${requestIdFrom(req.headers['x-request-id'])}`);
  });
  const wsServer = useServer(
    {
      execute: (args) => (args as EnvelopedArgs).rootValue.execute(args) as never,
      subscribe: (args) => (args as EnvelopedArgs).rootValue.subscribe(args) as never,
      // A connection_init without a token connects: GraphiQL sends an empty one and its Headers tab
      // with each operation (extensions.headers), which authenticates that operation on its own. A
      // token that is sent must work, or the socket is closed (4403) saying why.
      onConnect: async (ctx) => {
        const authorization = connectionAuthorization(ctx.connectionParams);
        if (authorization === undefined) return true;
        const secret = bearerSecret(authorization);
        const outcome = secret === null ? null : await services.identity.authenticate(secret);
        if (outcome && 'principal' in outcome) {
          closeWhenTokenEnds(services, outcome.principal, ctx.extra.socket);
          return true;
        }
        const reason =
          outcome === null ? (refusalOf(authorization, secret) ?? 'the token is not valid') : outcome.refused;
        // A close reason may hold at most 123 bytes; graphql-ws's own "Forbidden" close then does nothing.
        ctx.extra.socket.close(4403, Buffer.from(reason).subarray(0, 123).toString());
        return false;
      },
      onSubscribe: async (ctx, id, params) => {
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          // With the socket, lets a shared subscription write its events itself (src/graphql/shared-results.ts).
          subscriptionId: id,
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
    closeSubscriptions(reason) {
      for (const socket of wss.clients) socket.close(1001, reason);
      for (const stream of streams) stream.destroy();
    },
    async close() {
      await wsServer.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
