import type { ServerResponse } from 'node:http';

/**
 * Served with every page and file of the console and GraphiQL. No other site may frame them (a
 * framed page could trick a signed-in approver into clicking Approve), scripts come only from this
 * server (no inline script, no eval), and no address, such as a one-time `?link=` approval link,
 * leaves in a Referer. Styles may be inline: React and GraphiQL set style attributes. The page may
 * fetch from this server and from `connectSources` alone (the IdP the console signs in with).
 */
export function pagePolicy(connectSources: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    ["connect-src 'self'", ...connectSources].join(' '),
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export const PAGE_POLICY = pagePolicy();

export function pageHeaders(connectSources: readonly string[] = []): Readonly<Record<string, string>> {
  return {
    'content-security-policy': pagePolicy(connectSources),
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  };
}

export const PAGE_HEADERS = pageHeaders();

export function setPageHeaders(
  res: ServerResponse,
  headers: Readonly<Record<string, string>> = PAGE_HEADERS,
): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}
