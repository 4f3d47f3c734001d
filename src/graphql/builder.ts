import SchemaBuilder from '@pothos/core';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import ZodPlugin from '@pothos/plugin-zod';
import { GraphQLError } from 'graphql';
import type { Role } from '../core/auth.js';
import type { GraphQLContext } from './context.js';

type RoleScopes = { [R in Lowercase<Role>]: boolean };

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  AuthScopes: RoleScopes & { authenticated: boolean };
  DefaultFieldNullability: false;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
    DateTime: { Input: Date; Output: Date };
  };
}>({
  // scope-auth first, so a caller without the role never reaches validation or a resolver.
  plugins: [ScopeAuthPlugin, ZodPlugin, RelayPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    // Subscriptions are authorised once, when they start, not on every event.
    authorizeOnSubscribe: true,
    authScopes: (ctx) => {
      const role = ctx.principal?.role;
      return {
        authenticated: role !== undefined,
        admin: role === 'ADMIN',
        approver: role === 'APPROVER',
        agent: role === 'AGENT',
        extension: role === 'EXTENSION',
        viewer: role === 'VIEWER',
      };
    },
    unauthorizedError: (_parent, ctx, info) =>
      ctx.principal
        ? new GraphQLError(
            `role ${ctx.principal.role} may not use ${info.parentType.name}.${info.fieldName}`,
            {
              extensions: { code: 'FORBIDDEN' },
            },
          )
        : new GraphQLError('authentication required: send Authorization: Bearer <token>', {
            extensions: { code: 'UNAUTHENTICATED' },
          }),
  },
  zod: {
    validationError: (zodError) => {
      const issues = zodError.issues.map((i) => ({
        field: i.path.join('.') || '(input)',
        message: i.message,
      }));
      return new GraphQLError(issues.map((i) => `${i.field}: ${i.message}`).join('; '), {
        extensions: { code: 'BAD_USER_INPUT', issues },
      });
    },
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodeQueryOptions: false,
    nodesQueryOptions: false,
  },
});

/** Who may read what: named once so every field states its audience the same way. */
export const scopes = {
  admin: { admin: true },
  readers: { admin: true, approver: true, agent: true, viewer: true },
  people: { admin: true, approver: true, viewer: true },
  deciders: { admin: true, approver: true },
  agents: { admin: true, agent: true },
  anyRole: { authenticated: true },
} as const;

builder.queryType({});
builder.mutationType({});
