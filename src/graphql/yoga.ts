import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { GraphQLContext } from './context.js';
import { maskError } from './errors.js';
import { schema } from './schema.js';
import { useTokenWatch } from './token-watch.js';

export type Yoga = YogaServerInstance<Record<string, unknown>, GraphQLContext>;

/** `Bearer <secret>` from an HTTP header or a graphql-ws connection_init payload. */
export function bearerSecret(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = /^Bearer\s+(\S+)$/i.exec(value.trim());
  return match ? match[1]! : null;
}

function authorizationOf(initial: Record<string, unknown>): unknown {
  const request = initial.request as Request | undefined;
  const fromHeader = request?.headers.get('authorization');
  if (fromHeader) return fromHeader;
  const params = initial.connectionParams as Record<string, unknown> | undefined;
  return params?.authorization ?? params?.Authorization;
}

export function createGraphQLHandler(services: GraphQLContext['services']): Yoga {
  return createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: { subscriptionsProtocol: 'WS', title: 'Agent Tool System' },
    renderGraphiQL,
    maskedErrors: { maskError },
    logging: {
      debug: (...args) => services.logger.debug({ yoga: args }),
      info: (...args) => services.logger.info({ yoga: args }),
      warn: (...args) => services.logger.warn({ yoga: args }),
      error: (...args) => services.logger.error({ yoga: args }),
    },
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
    ],
    context: async (initial): Promise<GraphQLContext> => {
      const secret = bearerSecret(authorizationOf(initial));
      const outcome = secret ? await services.tokens.authenticate(secret) : null;
      if (outcome && 'refused' in outcome) return { principal: null, refusal: outcome.refused, services };
      return { principal: outcome?.principal ?? null, refusal: null, services };
    },
  });
}
