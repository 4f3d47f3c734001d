import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { renderGraphiQL } from '../features/console/index.js';
import { useObservability, yogaLogging } from '../features/observability/index.js';
import type { GraphQLContext } from './context.js';
import { maskError } from './errors.js';
import { type TransportLimits, useTransportLimits } from './rate-limits.js';
import { schema } from './schema.js';
import { useSharedSubscriptionResults } from './shared-results.js';
import { useTokenWatch } from './token-watch.js';

export type Yoga = YogaServerInstance<Record<string, unknown>, GraphQLContext>;

/** `Bearer <secret>` from an HTTP header or a graphql-ws connection_init payload. */
export function bearerSecret(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = /^Bearer\s+(\S+)$/i.exec(value.trim());
  return match ? match[1]! : null;
}

/** Why a sent Authorization was not taken when no token row answered it; null when none was sent. */
export function refusalOf(authorization: unknown, secret: string | null): string | null {
  if (authorization === undefined || authorization === null) return null;
  if (secret === null) return 'the Authorization header must be "Bearer <token>"';
  return 'this token is not known to this server (mistyped, or a secret rotated out)';
}

/** The value of the header named `authorization` in any letter case, from a plain object of headers. */
function authorizationIn(headers: unknown): unknown {
  if (typeof headers !== 'object' || headers === null) return undefined;
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'authorization' && value !== '' && value != null) return value;
  }
  return undefined;
}

/**
 * The token of a graphql-ws connection_init payload: `authorization` at the top (this API's own
 * clients) or under `headers` (Apollo- and Hasura-style clients), in any letter case.
 */
export function connectionAuthorization(connectionParams: unknown): unknown {
  if (typeof connectionParams !== 'object' || connectionParams === null) return undefined;
  return (
    authorizationIn(connectionParams) ?? authorizationIn((connectionParams as { headers?: unknown }).headers)
  );
}

/**
 * HTTP and SSE: the request's Authorization header, and nothing from the body, which a page could
 * post cross-site without a preflight. graphql-ws: the operation's own `extensions.headers` first
 * (GraphiQL sends what is typed into its Headers tab there, with every operation, and an empty
 * connection_init), else the connection's.
 */
function authorizationOf(initial: Record<string, unknown>): unknown {
  const request = initial.request as Request | undefined;
  if (request) return request.headers.get('authorization') ?? undefined;
  const params = initial.params as { extensions?: { headers?: unknown } } | undefined;
  return authorizationIn(params?.extensions?.headers) ?? connectionAuthorization(initial.connectionParams);
}

export interface GraphQLHandlerOptions {
  /** Per-token request rate and open subscriptions; none when absent (in-process tests). */
  limits?: TransportLimits;
  /** Origins (exact, e.g. `https://dash.example`) whose pages may call the API; others get no CORS headers. */
  allowedOrigins?: readonly string[];
}

/**
 * Same-origin only unless configured: a listed origin gets CORS headers naming it, any other none
 * (yoga's default would reflect every origin, with credentials). Tokens travel in a header, never in
 * a cookie, so no origin is ever told credentials are allowed.
 */
function corsFor(allowedOrigins: readonly string[]) {
  return (request: Request) => {
    const origin = request.headers.get('origin');
    if (origin === null || !allowedOrigins.includes(origin)) return false as const;
    return { origin, credentials: false, maxAge: 600 };
  };
}

export function createGraphQLHandler(
  services: GraphQLContext['services'],
  options: GraphQLHandlerOptions = {},
): Yoga {
  return createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: { subscriptionsProtocol: 'WS', title: 'Agent Tool System' },
    renderGraphiQL,
    cors: corsFor(options.allowedOrigins ?? []),
    maskedErrors: { maskError },
    // The HTTP listener has bounded the body already (src/app/server.ts: a declared Content-Length
    // within MAX_BODY_BYTES, nothing chunked); yoga's own check pipes every body through a
    // TransformStream, which was a third of the CPU of a small request.
    maxRequestBodySize: false,
    logging: yogaLogging(services.logger),
    plugins: [
      // Any request that carries a token was preflighted by a browser, so it counts as the CSRF header.
      useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf', 'authorization'] }),
      EnvelopArmorPlugin({
        maxDepth: { n: 12, ignoreIntrospection: true },
        costLimit: { maxCost: 50_000 },
        maxAliases: { n: 15 },
        maxDirectives: { n: 50 },
        maxTokens: { n: 2000 },
      }),
      useTokenWatch(),
      useSharedSubscriptionResults(),
      useObservability(services.logger, services.metrics),
      ...(options.limits ? [useTransportLimits(options.limits)] : []),
    ],
    context: async (initial): Promise<GraphQLContext> => {
      const authorization = authorizationOf(initial);
      const secret = bearerSecret(authorization);
      const outcome = secret ? await services.identity.authenticate(secret) : null;
      if (outcome && 'refused' in outcome) return { principal: null, refusal: outcome.refused, services };
      // A token that was sent and refused says why, never "send a token".
      const refusal = outcome ? null : refusalOf(authorization, secret);
      return { principal: outcome?.principal ?? null, refusal, services };
    },
  });
}
