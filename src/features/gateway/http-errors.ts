import type { ServerResponse } from 'node:http';

/** A JSON-RPC error that answers a whole HTTP request (no request id: it never reached a handler). */
export function jsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers = {},
) {
  if (res.headersSent) return;
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
