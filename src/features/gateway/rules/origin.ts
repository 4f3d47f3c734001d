/**
 * DNS-rebinding protection for the MCP endpoints. A browser page always sends Origin; clients that
 * are not browsers send none and are not asked. Unlike the GraphQL API, an origin equal to the
 * request's own Host is not enough here: under DNS rebinding the attacker's page has the attacker's
 * host in both. So an Origin must be in ALLOWED_ORIGINS, be PUBLIC_URL's origin, or be a loopback
 * origin (a page served from this machine).
 */
export function checkOrigin(
  origin: string | undefined,
  allowed: readonly string[],
  publicUrl: string | undefined,
): { ok: true } | { ok: false; message: string } {
  if (origin === undefined) return { ok: true };
  if (allowed.includes(origin)) return { ok: true };
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return { ok: false, message: `Forbidden: Origin ${origin} is not an origin` };
  }
  if (publicUrl && new URL(publicUrl).origin === url.origin) return { ok: true };
  if (['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) return { ok: true };
  return { ok: false, message: `Forbidden: Origin ${origin} is not allowed (ALLOWED_ORIGINS)` };
}
