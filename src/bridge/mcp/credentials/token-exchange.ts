import type { IdpToken } from './caller-tokens.js';

/** How this server asks the IdP for a token exchange: its token endpoint and its own client. */
export interface TokenExchangeConfig {
  /** OIDC_ISSUER: the token endpoint is read from its discovery document unless given. */
  issuer: string | null;
  /** TOKEN_EXCHANGE_ENDPOINT: the token endpoint, for an IdP without discovery. */
  tokenEndpoint: string | null;
  /** TOKEN_EXCHANGE_CLIENT_ID / _SECRET: this server's client at the IdP (client_secret_basic). */
  clientId: string;
  clientSecret: string;
}

/** The IdP refused or could not be asked; the message is safe to show the user (no token in it). */
export class TokenExchangeError extends Error {
  override name = 'TokenExchangeError';
}

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
/** Without expires_in and without the subject's expiry, an exchanged token is kept this long. */
const UNKNOWN_LIFETIME_MS = 5 * 60_000;
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * RFC 8693 at the IdP's token endpoint: the user's IdP token as subject token, for the upstream's
 * audience. What comes back is a token the upstream accepts; the user's own token stays here.
 */
export class TokenExchange {
  private endpoint: Promise<string> | null = null;

  constructor(private readonly config: TokenExchangeConfig) {}

  async exchange(subject: IdpToken, target: { audience: string; scope: string | null }): Promise<IdpToken> {
    const body = new URLSearchParams({
      grant_type: GRANT,
      subject_token: subject.token,
      subject_token_type: ACCESS_TOKEN,
      requested_token_type: ACCESS_TOKEN,
      audience: target.audience,
    });
    if (target.scope) body.set('scope', target.scope);
    const basic = Buffer.from(
      `${encodeURIComponent(this.config.clientId)}:${encodeURIComponent(this.config.clientSecret)}`,
    ).toString('base64');
    const response = await this.post(await this.tokenEndpoint(), body, basic);
    const answer = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (!response.ok || !answer || typeof answer.access_token !== 'string') {
      const why = answer && typeof answer.error === 'string' ? answer.error : `HTTP ${response.status}`;
      const detail =
        answer && typeof answer.error_description === 'string' ? `: ${answer.error_description}` : '';
      throw new TokenExchangeError(
        `the IdP refused the token exchange for ${target.audience} (${why}${detail})`,
      );
    }
    return { token: answer.access_token, expiresAt: expiryOf(answer.expires_in, subject.expiresAt) };
  }

  private async post(url: string, body: URLSearchParams, basic: string): Promise<Response> {
    try {
      return await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new TokenExchangeError(
        `the IdP's token endpoint could not be reached (${(error as Error).message})`,
      );
    }
  }

  /** Discovery once per process; a failed discovery is tried again at the next exchange. */
  private tokenEndpoint(): Promise<string> {
    if (this.config.tokenEndpoint) return Promise.resolve(this.config.tokenEndpoint);
    if (!this.config.issuer)
      return Promise.reject(
        new TokenExchangeError('token exchange needs OIDC_ISSUER or TOKEN_EXCHANGE_ENDPOINT'),
      );
    this.endpoint ??= discover(this.config.issuer).catch((error: unknown) => {
      this.endpoint = null;
      throw error;
    });
    return this.endpoint;
  }
}

async function discover(issuer: string): Promise<string> {
  const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const document = (await response.json()) as { token_endpoint?: unknown };
    if (typeof document.token_endpoint !== 'string') throw new Error('it names no token_endpoint');
    return document.token_endpoint;
  } catch (error) {
    throw new TokenExchangeError(
      `the IdP's discovery document ${url} could not be read (${(error as Error).message})`,
    );
  }
}

/** expires_in when the IdP gave it; else no longer than the subject token lived. */
function expiryOf(expiresIn: unknown, subjectExpiry: Date | null): Date {
  if (typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn > 0)
    return new Date(Date.now() + expiresIn * 1000);
  return subjectExpiry ?? new Date(Date.now() + UNKNOWN_LIFETIME_MS);
}
