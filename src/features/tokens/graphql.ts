import { type IdpIdentity, type Principal, roles } from '../../core/auth.js';
import { notFound } from '../../core/errors.js';
import { builder, scopes } from '../../graphql/builder.js';
import { bindTokenInputSchema, createTokenInputSchema, MAX_ROTATION_OVERLAP_SECONDS } from './inputs.js';
import type { ApiTokenRow } from './service.js';

const RoleEnum = builder.enumType('Role', {
  description:
    'What a token may do: ADMIN everything; HOST a trusted host runtime acting for many users, naming the user of each run it creates; APPROVER read and decide approvals of the users it is bound to; AGENT create runs for its one user and request calls; EXTENSION its own tools only; VIEWER read what its users may see.',
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
      description: 'AGENT: the one user every run of this token acts for; null for other roles.',
      nullable: true,
    }),
    users: t.exposeStringList('users', {
      description: 'APPROVER and VIEWER: the users (ids or globs) whose runs it sees; empty when allUsers.',
    }),
    allUsers: t.exposeBoolean('allUsers', {
      description: 'APPROVER and VIEWER: an admin granted every user.',
    }),
    profiles: t.exposeStringList('profiles', {
      description: 'AGENT: the profiles (names or globs) its runs may use; empty when its runs name none.',
    }),
    planNodes: t.exposeStringList('planNodes', {
      description: 'AGENT: the plan nodes its runs may name; null when any.',
      nullable: true,
    }),
    legacyUnbound: t.exposeBoolean('legacyUnbound', {
      description:
        'A token from before bindings that an admin marked to keep working unbound, as it did (see bindApiToken).',
    }),
    extensionId: t.exposeString('extensionId', {
      description: 'The extension an EXTENSION token speaks for; null for other roles.',
      nullable: true,
    }),
    createdAt: t.expose('createdAt', { description: 'When the token was created.', type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', {
      description: 'When the token stops working (its open subscriptions end then); null when never.',
      type: 'DateTime',
      nullable: true,
    }),
    lastUsedAt: t.expose('lastUsedAt', {
      description: 'When a request last authenticated with it, to the minute; null when never.',
      type: 'DateTime',
      nullable: true,
    }),
    rotatedAt: t.expose('rotatedAt', {
      description: 'When its secret was last replaced by rotateApiToken; null when never.',
      type: 'DateTime',
      nullable: true,
    }),
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
    description: 'A new token (or a new secret for one) and its secret, which is shown only here.',
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
  description: 'A token to create, and whom it acts for.',
  fields: (t) => ({
    name: t.string({ description: 'A label for people; it names the actor in the journal.', required: true }),
    role: t.field({ description: 'What requests with the token may do.', type: RoleEnum, required: true }),
    userId: t.string({ description: 'Required for AGENT tokens: the one user its runs act for.' }),
    users: t.stringList({
      description:
        'APPROVER and VIEWER: the users (ids or globs) whose runs it sees; this or allUsers is required.',
    }),
    allUsers: t.boolean({ description: 'APPROVER and VIEWER: every user.' }),
    profiles: t.stringList({
      description: 'AGENT: the profiles (names or globs) its runs may use; none when omitted.',
    }),
    planNodes: t.stringList({ description: 'AGENT: the plan nodes its runs may name; any when omitted.' }),
    extensionId: t.string({ description: 'Required for EXTENSION tokens: the extension they speak for.' }),
    expiresAt: t.field({
      description: 'When the token stops working (in the future); never when omitted.',
      type: 'DateTime',
    }),
  }),
});

const BindApiTokenInput = builder.inputType('BindApiTokenInput', {
  description:
    "A token's new binding, under the rules of createApiToken. A field given replaces the stored one (null or [] clears it); one left out stays as it is. Binding a token clears legacyUnbound unless legacyUnbound is given.",
  fields: (t) => ({
    userId: t.string({ description: 'AGENT: the one user its runs act for.' }),
    users: t.stringList({
      description: 'APPROVER and VIEWER: the users (ids or globs) whose runs it sees (clears allUsers).',
    }),
    allUsers: t.boolean({ description: 'APPROVER and VIEWER: every user (clears users when true).' }),
    profiles: t.stringList({ description: 'AGENT: the profiles (names or globs) its runs may use.' }),
    planNodes: t.stringList({ description: 'AGENT: the plan nodes its runs may name; null for any.' }),
    legacyUnbound: t.boolean({
      description:
        'true: a token from before bindings keeps working unbound, as it did; false: it must be bound to be used.',
    }),
  }),
});

const IdpIdentityType = builder.objectRef<IdpIdentity>('IdpIdentity').implement({
  description: "The person an IdP token names, as the company's identity provider says.",
  fields: (t) => ({
    issuer: t.exposeString('issuer', { description: 'The IdP (OIDC_ISSUER) that issued the token.' }),
    subject: t.exposeString('subject', {
      description: "The token's `sub`: the person's stable id at the IdP.",
    }),
    displayName: t.exposeString('displayName', {
      description:
        'The name shown for the person: the first of the configured display name claims (name, preferred_username, email), else the subject.',
    }),
    expiresAt: t.expose('expiresAt', {
      description: "The token's `exp`: requests with it are refused after this, and what it opened ends.",
      type: 'DateTime',
    }),
  }),
});

const CallerType = builder.objectRef<Principal>('Caller').implement({
  description: 'Who this request authenticated as (an API token or an IdP token) and what that binds it to.',
  fields: (t) => ({
    name: t.exposeString('name', {
      description:
        "The API token's name, or the IdP person's display name; journal actors are `<role>:<name>`.",
    }),
    role: t.expose('role', { description: 'What this request may do.', type: RoleEnum }),
    userId: t.exposeString('userId', {
      description: 'AGENT: the user its runs act for; null for other roles.',
      nullable: true,
    }),
    users: t.exposeStringList('users', {
      description: 'APPROVER and VIEWER: the users (ids or globs) whose runs it sees; `*` for every user.',
    }),
    profiles: t.exposeStringList('profiles', { description: 'AGENT: the profiles its runs may use.' }),
    idp: t.expose('idp', {
      description: 'The IdP person, when the request carried an IdP token; null for an API token.',
      type: IdpIdentityType,
      nullable: true,
    }),
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
    description:
      'The API token this request authenticated with; NOT_FOUND for a request with an IdP token (see whoami). Any role.',
    authScopes: scopes.anyRole,
    resolve: async (_root, _args, ctx) => {
      const token = await ctx.services.tokens.get(ctx.principal!.tokenId);
      if (!token)
        throw notFound('this request authenticated with an IdP token, not an API token: ask whoami');
      return token;
    },
  }),
  whoami: t.field({
    type: CallerType,
    description: 'Who this request authenticated as, with an API token or an IdP token. Any role.',
    authScopes: scopes.anyRole,
    resolve: (_root, _args, ctx) => ctx.principal!,
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
  bindApiToken: t.field({
    description:
      'Changes whom an existing token acts for (or marks a token from before bindings legacy-unbound). NOT_FOUND for an unknown id, CONFLICT for a revoked token. ADMIN only.',
    type: ApiTokenType,
    authScopes: scopes.admin,
    args: {
      id: t.arg.id({ required: true, description: 'The token to bind.' }),
      input: t.arg({
        description: 'The new binding.',
        type: BindApiTokenInput,
        required: true,
        validate: { schema: bindTokenInputSchema },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.tokens.bind(String(args.id), args.input),
  }),
  rotateApiToken: t.field({
    description: `Gives a token a new secret, returned once; the token keeps its id and bindings. The old secret keeps working for overlapSeconds (at most ${MAX_ROTATION_OVERLAP_SECONDS}), then is refused and what it opened is ended. CONFLICT for a revoked or expired token. ADMIN only.`,
    type: CreatedApiToken,
    authScopes: scopes.admin,
    args: {
      id: t.arg.id({ required: true, description: 'The token to rotate.' }),
      overlapSeconds: t.arg.int({
        description: `How long the old secret keeps working, 0 to ${MAX_ROTATION_OVERLAP_SECONDS} seconds.`,
        defaultValue: 300,
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.tokens.rotate(String(args.id), { overlapSeconds: args.overlapSeconds ?? 300 }),
  }),
  revokeApiToken: t.boolean({
    description:
      'Revokes a token at once (revoking it again is a no-op): it is refused from then on and its open subscriptions end within seconds on every process. True when done, NOT_FOUND for an unknown id. ADMIN only.',
    authScopes: scopes.admin,
    args: { id: t.arg.id({ required: true, description: 'The token to revoke.' }) },
    resolve: (_root, args, ctx) => ctx.services.tokens.revoke(String(args.id)),
  }),
}));
