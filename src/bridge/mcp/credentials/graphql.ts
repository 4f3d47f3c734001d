import { builder, scopes } from '../../../graphql/builder.js';
import {
  credentialSchemes,
  type UserCredentialConfig,
  userCredentialModes,
} from '../rules/user-credential.js';
import type { CredentialMetadata } from './store.js';

const UserCredentialModeEnum = builder.enumType('UpstreamCredentialMode', {
  description:
    "STORED: the user sets a secret once (setUpstreamCredential); it is kept encrypted and never shown. TOKEN_EXCHANGE: the user's IdP token is exchanged (RFC 8693) for a token of the upstream's audience.",
  values: userCredentialModes,
});
const CredentialSchemeEnum = builder.enumType('UpstreamCredentialScheme', {
  description: 'BEARER: the header is `Bearer <credential>`. RAW: the header is the credential itself.',
  values: credentialSchemes,
});

export const McpUserCredentialType = builder.objectRef<UserCredentialConfig>('McpUserCredential').implement({
  description: "How a server's calls carry each user's own credential instead of only the admin's headers.",
  fields: (t) => ({
    mode: t.expose('mode', { description: 'How the credential is obtained.', type: UserCredentialModeEnum }),
    header: t.exposeString('header', { description: 'The request header it is sent in.' }),
    scheme: t.expose('scheme', {
      description: 'How it is written in the header.',
      type: CredentialSchemeEnum,
    }),
    audience: t.exposeString('audience', {
      description: 'TOKEN_EXCHANGE: the audience asked of the IdP; null for STORED.',
      nullable: true,
    }),
    scope: t.exposeString('scope', {
      description: 'TOKEN_EXCHANGE: the scope asked of the IdP; null when none.',
      nullable: true,
    }),
  }),
});

export const McpUserCredentialInput = builder.inputType('McpUserCredentialInput', {
  description: 'Each user calls the server with their own credential (STREAMABLE_HTTP only).',
  fields: (t) => ({
    mode: t.field({
      description: 'How the credential is obtained.',
      type: UserCredentialModeEnum,
      required: true,
    }),
    header: t.string({
      description: "The header it is sent in; default Authorization. Not one of the server's headers.",
    }),
    scheme: t.field({
      description: 'How it is written in the header; default BEARER.',
      type: CredentialSchemeEnum,
    }),
    audience: t.string({ description: 'TOKEN_EXCHANGE (required): the audience asked of the IdP.' }),
    scope: t.string({ description: 'TOKEN_EXCHANGE: the scope asked of the IdP.' }),
  }),
});

const UpstreamCredentialType = builder.objectRef<CredentialMetadata>('UpstreamCredential').implement({
  description:
    "That a user's credential for an upstream MCP server exists, and when it was set. Its value is never shown.",
  fields: (t) => ({
    userId: t.exposeString('userId', { description: 'The user whose calls it goes with.' }),
    server: t.exposeString('serverName', { description: 'The MCP server it is for.' }),
    mode: t.expose('source', { description: 'How it was obtained.', type: UserCredentialModeEnum }),
    keyId: t.exposeString('keyId', {
      description: 'The CREDENTIALS_KEY id it is encrypted under (to follow a key rotation).',
    }),
    setAt: t.expose('setAt', { description: 'When it was set (or exchanged).', type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', {
      description: 'TOKEN_EXCHANGE: when the exchanged token stops working; null for STORED.',
      type: 'DateTime',
      nullable: true,
    }),
  }),
});

builder.queryFields((t) => ({
  myUpstreamCredentials: t.field({
    description:
      "The caller's own upstream credentials (metadata only); empty for a token that acts for no user. Any role.",
    type: [UpstreamCredentialType],
    authScopes: scopes.anyRole,
    resolve: (_root, _args, ctx) => ctx.services.upstreamCredentials.own(ctx.principal!),
  }),
  upstreamCredentials: t.field({
    description: "Every user's upstream credentials (metadata only: never a value). ADMIN only.",
    type: [UpstreamCredentialType],
    authScopes: scopes.admin,
    args: {
      server: t.arg.string({ description: 'Only those for this MCP server.' }),
      userId: t.arg.string({ description: 'Only those of this user.' }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.upstreamCredentials.list({ serverName: args.server, userId: args.userId }),
  }),
}));

builder.mutationFields((t) => ({
  setUpstreamCredential: t.field({
    description:
      "Sets the caller's own credential for a STORED-mode MCP server (replacing theirs); it can never be read back. FAILED_PRECONDITION when the server takes no stored credential or CREDENTIALS_KEY is unset. Any token that acts for a user (FORBIDDEN otherwise).",
    type: UpstreamCredentialType,
    authScopes: scopes.self,
    args: {
      server: t.arg.string({ description: 'The MCP server.', required: true }),
      secret: t.arg.string({
        description: 'The credential (as the server expects it, without `Bearer ` for BEARER).',
        required: true,
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.upstreamCredentials.set(ctx.principal!, args.server, args.secret),
  }),
  connectUpstreamCredential: t.field({
    description:
      "Exchanges the IdP token this request came with for a token of a TOKEN_EXCHANGE-mode server's audience and keeps it (encrypted, until it expires) for the caller's calls. FAILED_PRECONDITION when the request has no IdP token, the server exchanges no tokens, or the IdP refuses. Any token that acts for a user (FORBIDDEN otherwise).",
    type: UpstreamCredentialType,
    authScopes: scopes.self,
    args: { server: t.arg.string({ description: 'The MCP server.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.upstreamCredentials.connect(ctx.principal!, args.server),
  }),
  removeUpstreamCredential: t.boolean({
    description:
      "Removes the caller's own credential for a server; false when there was none. Any token that acts for a user (FORBIDDEN otherwise).",
    authScopes: scopes.self,
    args: { server: t.arg.string({ description: 'The MCP server.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.upstreamCredentials.remove(ctx.principal!, args.server),
  }),
  reencryptUpstreamCredentials: t.int({
    description:
      'Re-encrypts every upstream credential not under the first key of CREDENTIALS_KEY with it (after a key rotation); returns how many. ADMIN only.',
    authScopes: scopes.admin,
    resolve: (_root, _args, ctx) => ctx.services.upstreamCredentials.reencrypt(),
  }),
}));
