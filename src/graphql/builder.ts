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
  AuthScopes: RoleScopes & { authenticated: boolean; user: boolean };
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
        // The principal acts for one user (an AGENT token's, or a person's IdP identity): what is "their own".
        user: ctx.principal?.userId != null,
        admin: role === 'ADMIN',
        host: role === 'HOST',
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
        : new GraphQLError(
            ctx.refusal
              ? `authentication failed: ${ctx.refusal}`
              : 'authentication required: send Authorization: Bearer <token>',
            { extensions: { code: 'UNAUTHENTICATED' } },
          ),
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
    // Every connection in the schema shares these, so they are described once here.
    pageInfoTypeOptions: { description: 'Where this page sits in the whole list.' },
    hasNextPageFieldOptions: {
      description: 'More items follow this page (ask again with `after: endCursor`).',
    },
    hasPreviousPageFieldOptions: {
      description: 'More items precede this page (ask again with `before: startCursor`).',
    },
    startCursorFieldOptions: { description: "The first item's cursor; null when the page is empty." },
    endCursorFieldOptions: { description: "The last item's cursor; null when the page is empty." },
    defaultConnectionTypeOptions: { description: 'One page of a list, in the order its field states.' },
    defaultEdgeTypeOptions: { description: 'One item of a page, with the cursor to page on from it.' },
    edgesFieldOptions: { description: "This page's items, in order." },
    pageInfoFieldOptions: { description: 'Whether more items come before or after this page.' },
    nodeFieldOptions: { description: 'The item.' },
    cursorFieldOptions: { description: 'An opaque position in the list; pass it as `after` or `before`.' },
    firstArgOptions: {
      description:
        'At most this many items from the start (or after `after`); each list has its own default and cap.',
    },
    lastArgOptions: { description: 'At most this many items from the end (or before `before`).' },
    afterArgOptions: { description: 'Only items after this cursor (an `endCursor` or edge cursor).' },
    beforeArgOptions: { description: 'Only items before this cursor (a `startCursor` or edge cursor).' },
  },
});

/** Who may read what: named once so every field states its audience the same way. */
export const scopes = {
  admin: { admin: true },
  readers: { admin: true, host: true, approver: true, agent: true, viewer: true },
  people: { admin: true, approver: true, viewer: true },
  deciders: { admin: true, approver: true },
  agents: { admin: true, host: true, agent: true },
  anyRole: { authenticated: true },
  /** Whoever acts for one user, on that user's own things (their upstream credentials). */
  self: { user: true },
} as const;

builder.queryType({
  description: 'Reads. Each field states which roles may use it; a token without one gets FORBIDDEN.',
});
builder.mutationType({
  description: 'Changes. Each field states which roles may use it; a token without one gets FORBIDDEN.',
});
