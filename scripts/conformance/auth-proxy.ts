import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A pass-through HTTP proxy that adds `Authorization: Bearer <token>` to every request: the
 * conformance suite sends no token, the gateway takes none without one. Everything else goes
 * through unchanged, the Host and Origin headers included (the suite's DNS-rebinding scenario
 * sends a foreign Host and expects the gateway to refuse it), and bodies stream both ways (SSE).
 */
export async function startAuthProxy(
  target: URL,
  token: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`auth proxy: ${error.message}`);
    });
    req.pipe(upstream);
    res.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
