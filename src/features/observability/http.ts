import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Logger } from '../../core/logger.js';
import type { Metrics } from './metrics.js';
import { type RequestContext, requestIdFrom, runInRequest } from './request-context.js';
import { tracer, tracingEnabled } from './spans.js';

/** A fixed set of route labels: a path a client makes up must not become a new metric series. */
function routeOf(path: string): string {
  if (path === '/graphql' || path === '/health' || path === '/metrics') return path;
  if (path === '/' || path.startsWith('/console') || path.startsWith('/assets')) return '/console';
  return 'other';
}

/** Probes and scrapes come every few seconds; their lines are kept for debug. */
const QUIET = new Set(['/health', '/metrics']);

export interface HttpObservation {
  logger: Logger;
  metrics: Metrics | null;
  /** True once shutdown began: every request is answered 503 and readiness says so. */
  draining: () => boolean;
}

function refuseWhileDraining(req: IncomingMessage, res: ServerResponse): void {
  const path = req.url?.split('?')[0];
  res.writeHead(503, { 'content-type': 'application/json', connection: 'close', 'retry-after': '1' });
  res.end(
    JSON.stringify(
      path === '/health'
        ? { status: 'draining' }
        : { errors: [{ message: 'server shutting down', extensions: { code: 'UNAVAILABLE' } }] },
    ),
  );
}

/**
 * Wraps the server's request listener: an `x-request-id` on every response (the client's when it is
 * sane), that id on every log line written while the request is served, one access line when it
 * ends, HTTP metrics, a server span when tracing is on, and 503 for everything once draining.
 */
export function observeHttp(observation: HttpObservation, listener: RequestListener): RequestListener {
  const { logger, metrics } = observation;
  const traced = tracingEnabled();
  return (req, res) => {
    const started = process.hrtime.bigint();
    const context: RequestContext = {
      requestId: requestIdFrom(req.headers['x-request-id']),
      tokenName: null,
    };
    res.setHeader('x-request-id', context.requestId);
    const method = req.method ?? 'GET';
    const path = req.url?.split('?')[0] ?? '/';
    const route = routeOf(path);
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics?.httpRequests.inc({ method, route, status: String(res.statusCode) });
      metrics?.httpDuration.observe({ method, route }, seconds);
      runInRequest(context, () =>
        logger[QUIET.has(path) && res.statusCode < 400 ? 'debug' : 'info'](
          {
            method,
            path,
            status: res.statusCode,
            durationMs: Math.round(seconds * 10_000) / 10,
            token: context.tokenName,
          },
          'request',
        ),
      );
    });
    runInRequest(context, () => {
      if (observation.draining()) return refuseWhileDraining(req, res);
      if (!traced) return listener(req, res);
      tracer.startActiveSpan(
        `${method} ${route}`,
        {
          kind: SpanKind.SERVER,
          attributes: {
            'http.request.method': method,
            'url.path': path,
            'http.request_id': context.requestId,
          },
        },
        (span) => {
          res.once('close', () => {
            span.setAttribute('http.response.status_code', res.statusCode);
            if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
            span.end();
          });
          listener(req, res);
        },
      );
    });
  };
}
