import { roles } from '../../core/auth.js';
import { builder, scopes } from '../../graphql/builder.js';
import { type ApiTokenRow, createTokenInputSchema } from './service.js';

const RoleEnum = builder.enumType('Role', {
  description:
    'What a token may do: ADMIN everything; APPROVER read and decide approvals; AGENT create runs and request calls; EXTENSION its own tools only; VIEWER read.',
  values: roles,
});

const ApiTokenType = builder.objectRef<ApiTokenRow>('ApiToken').implement({
  description: 'A bearer token. Only its hash is stored; the secret is shown once, at creation.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The token id (not the secret); pass it to revokeApiToken.' }),
    name: t.exposeString('name', {
      description: 'A label for people; actors in the journal are written `<role>:<name>`.',
    }),
    role: t.expose('role', { description: 'What requests with this token may do.', type: RoleEnum }),
    userId: t.exposeString('userId', {
      description: 'The person this token acts for (its USER policy layer); null when unbound.',
      nullable: true,
    }),
    extensionId: t.exposeString('extensionId', {
      description: 'The extension an EXTENSION token speaks for; null for other roles.',
      nullable: true,
    }),
    createdAt: t.expose('createdAt', { description: 'When the token was created.', type: 'DateTime' }),
    revokedAt: t.expose('revokedAt', {
      description: 'When the token was revoked; null while it is valid.',
      type: 'DateTime',
      nullable: true,
    }),
  }),
});

const CreatedApiToken = builder
  .objectRef<{ secret: string; token: ApiTokenRow }>('CreatedApiToken')
  .implement({
    description: 'A new token and its secret, which is shown only here.',
    fields: (t) => ({
      token: t.exposeString('secret', {
        description: 'The secret. It is not stored and cannot be shown again.',
      }),
      apiToken: t.expose('token', {
        description: 'The stored token (without its secret).',
        type: ApiTokenType,
      }),
    }),
  });

const CreateApiTokenInput = builder.inputType('CreateApiTokenInput', {
  description: 'A token to create.',
  fields: (t) => ({
    name: t.string({ description: 'A label for people; it names the actor in the journal.', required: true }),
    role: t.field({ description: 'What requests with the token may do.', type: RoleEnum, required: true }),
    userId: t.string({ description: 'The person this token acts for (USER policy layer).' }),
    extensionId: t.string({ description: 'Required for EXTENSION tokens: the extension they speak for.' }),
  }),
});

builder.queryFields((t) => ({
  apiTokens: t.field({
    description: 'Every token, revoked ones included. ADMIN only.',
    type: [ApiTokenType],
    authScopes: scopes.admin,
    resolve: (_root, _args, ctx) => ctx.services.tokens.list(),
  }),
  me: t.field({
    type: ApiTokenType,
    description: 'The token this request authenticated with. Any role.',
    authScopes: scopes.anyRole,
    resolve: async (_root, _args, ctx) => (await ctx.services.tokens.get(ctx.principal!.tokenId))!,
  }),
}));

builder.mutationFields((t) => ({
  createApiToken: t.field({
    description: 'Creates a token and returns its secret once. ADMIN only.',
    type: CreatedApiToken,
    authScopes: scopes.admin,
    args: {
      input: t.arg({
        description: 'The token to create.',
        type: CreateApiTokenInput,
        required: true,
        validate: { schema: createTokenInputSchema },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.tokens.create(args.input),
  }),
  revokeApiToken: t.boolean({
    description:
      'Revokes a token at once (revoking it again is a no-op); true when done, NOT_FOUND for an unknown id. ADMIN only.',
    authScopes: scopes.admin,
    args: { id: t.arg.id({ required: true, description: 'The token to revoke.' }) },
    resolve: (_root, args, ctx) => ctx.services.tokens.revoke(String(args.id)),
  }),
}));
