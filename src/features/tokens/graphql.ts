import { roles } from '../../core/auth.js';
import { builder, scopes } from '../../graphql/builder.js';
import { type ApiTokenRow, createTokenInputSchema } from './service.js';

export const RoleEnum = builder.enumType('Role', { values: roles });

const ApiTokenType = builder.objectRef<ApiTokenRow>('ApiToken').implement({
  description: 'A bearer token. Only its hash is stored; the secret is shown once, at creation.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    role: t.expose('role', { type: RoleEnum }),
    userId: t.exposeString('userId', { nullable: true }),
    extensionId: t.exposeString('extensionId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
  }),
});

const CreatedApiToken = builder
  .objectRef<{ secret: string; token: ApiTokenRow }>('CreatedApiToken')
  .implement({
    fields: (t) => ({
      token: t.exposeString('secret', {
        description: 'The secret. It is not stored and cannot be shown again.',
      }),
      apiToken: t.expose('token', { type: ApiTokenType }),
    }),
  });

const CreateApiTokenInput = builder.inputType('CreateApiTokenInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    role: t.field({ type: RoleEnum, required: true }),
    userId: t.string({ description: 'The person this token acts for (USER policy layer).' }),
    extensionId: t.string({ description: 'Required for EXTENSION tokens: the extension they speak for.' }),
  }),
});

builder.queryFields((t) => ({
  apiTokens: t.field({
    type: [ApiTokenType],
    authScopes: scopes.admin,
    resolve: (_root, _args, ctx) => ctx.services.tokens.list(),
  }),
  me: t.field({
    type: ApiTokenType,
    description: 'The token this request authenticated with.',
    authScopes: scopes.anyRole,
    resolve: async (_root, _args, ctx) => (await ctx.services.tokens.get(ctx.principal!.tokenId))!,
  }),
}));

builder.mutationFields((t) => ({
  createApiToken: t.field({
    type: CreatedApiToken,
    authScopes: scopes.admin,
    args: {
      input: t.arg({
        type: CreateApiTokenInput,
        required: true,
        validate: { schema: createTokenInputSchema },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.tokens.create(args.input),
  }),
  revokeApiToken: t.boolean({
    authScopes: scopes.admin,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.tokens.revoke(String(args.id)),
  }),
}));
