import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The part of oidc-provider (JavaScript only) this IdP uses: token models and grant registration. */
interface IssuedToken {
  accountId?: string;
  clientId?: string;
  aud?: unknown;
  expiration: number;
  save(): Promise<string>;
}
interface TokenModel {
  new (init: { accountId: string; client: unknown; scope: string; gty?: string }): IssuedToken;
  find(value: string): Promise<IssuedToken | undefined>;
}
interface ExchangeContext {
  oidc: { params: Record<string, string | undefined>; client?: unknown; provider: ProviderInstance };
  body: unknown;
}
interface ProviderInstance {
  AccessToken: TokenModel;
  Client: { find(id: string): Promise<unknown> };
  registerGrantType(name: string, handler: (ctx: ExchangeContext) => Promise<void>, params: string[]): void;
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
}
interface OidcProviderModule {
  default: new (issuer: string, configuration: Record<string, unknown>) => ProviderInstance;
  errors: Record<'InvalidGrant' | 'InvalidRequest', new (description: string) => Error>;
}

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

export interface TokenExchangeIdp {
  issuer: string;
  /** This server's client at the IdP, allowed the token-exchange grant. */
  client: { id: string; secret: string };
  /** An access token of the IdP for a user, as an MCP host signed in with it would hold. */
  userToken(accountId: string): Promise<string>;
  /** The IdP's own record of a token it issued (null when it did not, or it expired). */
  introspect(token: string): Promise<{ accountId: string; aud: unknown; clientId: string } | null>;
  close(): Promise<void>;
}

/**
 * A real `oidc-provider` on a loopback port with RFC 8693 token exchange registered: it takes a
 * subject access token it issued and mints a new one for the same account and the asked audience.
 */
export async function startTokenExchangeIdp(): Promise<TokenExchangeIdp> {
  // Loaded by a computed name: the package has no types, and this file names the part it uses.
  const { default: Provider, errors } = (await import('oidc-provider' as string)) as OidcProviderModule;
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const client = { id: 'ats-server', secret: 'ats-server-secret-0123456789abcdef' };
  const provider = new Provider(issuer, {
    features: { devInteractions: { enabled: false } },
    ttl: { AccessToken: 600 },
    clients: [
      {
        client_id: client.id,
        client_secret: client.secret,
        grant_types: [GRANT],
        response_types: [],
        redirect_uris: [],
      },
      {
        client_id: 'mcp-host',
        client_secret: 'mcp-host-secret-0123456789abcdef',
        redirect_uris: ['http://127.0.0.1/cb'],
      },
    ],
  });
  provider.registerGrantType(
    GRANT,
    async (ctx) => {
      const params = ctx.oidc.params;
      if (params.subject_token_type !== ACCESS_TOKEN)
        throw new errors.InvalidRequest('unsupported subject_token_type');
      const subject = await ctx.oidc.provider.AccessToken.find(params.subject_token ?? '');
      if (!subject?.accountId) throw new errors.InvalidGrant('subject token is invalid or expired');
      const token = new ctx.oidc.provider.AccessToken({
        accountId: subject.accountId,
        client: ctx.oidc.client,
        gty: 'token-exchange',
        scope: params.scope ?? '',
      });
      token.aud = params.audience;
      const value = await token.save();
      ctx.body = {
        access_token: value,
        issued_token_type: ACCESS_TOKEN,
        token_type: 'Bearer',
        expires_in: token.expiration,
      };
    },
    ['subject_token', 'subject_token_type', 'requested_token_type', 'audience'],
  );
  http.on('request', provider.callback());
  return {
    issuer,
    client,
    async userToken(accountId) {
      const host = await provider.Client.find('mcp-host');
      return new provider.AccessToken({ accountId, client: host, scope: 'openid' }).save();
    },
    async introspect(token) {
      const found = await provider.AccessToken.find(token);
      return found ? { accountId: found.accountId!, aud: found.aud, clientId: found.clientId! } : null;
    },
    async close() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
