import type { ServerResponse } from 'node:http';

/**
 * Served with every page and file of the console and GraphiQL. No other site may frame them (a
 * framed page could trick a signed-in approver into clicking Approve), scripts come only from this
 * server (no inline script, no eval), and no address, such as a one-time `?link=` approval link,
 * leaves in a Referer. Styles may be inline: React and GraphiQL set style attributes.
 */
export const PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PAGE_POLICY,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

export function setPageHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
}
