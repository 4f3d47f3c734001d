import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: tests assert the received shape field by field.
  json: any;
  /** The status this receiver answered with. */
  answeredWith: number;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  url: string;
  received: ReceivedRequest[];
  /** The statuses to answer the next requests with, in order; after them every request gets 200. */
  answerNext(...statuses: number[]): void;
  /** Stops listening (again is a no-op), so a test can make the target unreachable. */
  close(): Promise<void>;
}

/**
 * A real HTTP receiver on a free local port, standing in for a webhook endpoint or a chat
 * service's incoming webhook: it records every request and answers with the statuses it is told.
 */
export async function startReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const planned: number[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const status = planned.shift() ?? 200;
      received.push({
        path: request.url ?? '',
        headers: request.headers,
        body,
        json: JSON.parse(body),
        answeredWith: status,
      });
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answerNext: (...statuses) => planned.push(...statuses),
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (!server.listening) return resolve();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * What docs/notifications.md tells a receiver to do, written independently of the server's
 * code: HMAC-SHA256 over "<timestamp>.<raw body>", compared in constant time.
 */
export function signatureVerifies(secret: string, request: ReceivedRequest): boolean {
  const timestamp = request.headers['x-ats-timestamp'];
  const signature = request.headers['x-ats-signature'];
  if (typeof timestamp !== 'string' || typeof signature !== 'string') return false;
  const expected = Buffer.from(
    `sha256=${createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex')}`,
  );
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
