import type { IncomingMessage, ServerResponse } from 'node:http';

/** How the console signs people in with the company's IdP (OIDC_ISSUER and OIDC_CONSOLE_*). */
export interface ConsoleSignIn {
  issuer: string;
  /** The console's client at the IdP: public (no secret), authorization code with PKCE. */
  clientId: string;
  /** Space-separated, `openid` first. */
  scope: string;
  /** An RFC 8707 resource indicator for IdPs that issue access tokens per resource; null: none sent. */
  resource: string | null;
  /** Which of the IdP's tokens the console sends as its bearer token. */
  token: 'access_token' | 'id_token';
}

export const SIGN_IN_PATH = '/console/sign-in.json';

/**
 * What the page reads before showing sign-in: public (nothing here is a secret: a public client's
 * id is in every authorization URL), never cached, so a change of IdP reaches the next page load.
 */
export function sendSignIn(req: IncomingMessage, res: ServerResponse, signIn: ConsoleSignIn | null): void {
  const body = JSON.stringify({ oidc: signIn });
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Where the console's page may fetch from beyond this server: the IdP's discovery and token endpoint. */
export function connectSourcesOf(signIn: ConsoleSignIn | null): string[] {
  return signIn ? [new URL(signIn.issuer).origin] : [];
}
