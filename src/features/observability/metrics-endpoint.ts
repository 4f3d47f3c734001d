import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.js';

export interface MetricsAccess {
  /** A secret that scrapers send as `Authorization: Bearer <token>` (METRICS_TOKEN). */
  token?: string | undefined;
  /** Whether a bearer secret is an ADMIN API token (one lookup per scrape). */
  isAdmin?: ((secret: string) => Promise<boolean>) | undefined;
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

async function allowed(req: IncomingMessage, access: MetricsAccess): Promise<boolean> {
  if (!access.token && !access.isAdmin) return true;
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!match) return false;
  const secret = match[1]!;
  if (access.token && sameSecret(secret, access.token)) return true;
  return access.isAdmin ? access.isAdmin(secret) : false;
}

/** GET /metrics in the Prometheus text format, for whoever the access rule lets in (401 otherwise). */
export async function serveMetrics(
  metrics: Metrics,
  access: MetricsAccess,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (!(await allowed(req, access))) {
    res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('unauthorized\n');
    return;
  }
  const body = await metrics.registry.metrics();
  res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body);
}

/** A listener of its own (METRICS_PORT), for a port that only the scraper's network reaches. */
export async function listenForMetrics(
  metrics: Metrics,
  access: MetricsAccess,
  port: number,
  host: string,
): Promise<{ address: AddressInfo; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.split('?')[0] === '/metrics')
      void serveMetrics(metrics, access, req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    address: server.address() as AddressInfo,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
