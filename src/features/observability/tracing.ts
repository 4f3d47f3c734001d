import { context, propagation, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { inSpan, markTracingEnabled } from './spans.js';

export interface TracingOptions {
  /** The OTLP/HTTP base URL (OTEL_EXPORTER_OTLP_ENDPOINT); traces go to `<url>/v1/traces`. */
  endpoint: string;
  serviceName: string;
  /** How long spans wait to be sent in a batch. */
  scheduledDelayMs?: number;
}

/**
 * Registers the SDK (loaded only now: with tracing off none of it is imported) and instruments the
 * database and outgoing fetch; returns the flush-and-stop.
 */
export async function startTracing(options: TracingOptions): Promise<() => Promise<void>> {
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }, db] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('./trace-database.js'),
    ]);
  const exporter = new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces` });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [
      new BatchSpanProcessor(exporter, { scheduledDelayMillis: options.scheduledDelayMs ?? 1000 }),
    ],
  });
  provider.register();
  db.traceDatabase();
  traceFetch();
  markTracingEnabled();
  return async () => {
    await provider.forceFlush();
    await provider.shutdown();
  };
}

/** Outgoing HTTP (model providers, MCP over HTTP) is made with fetch: a client span and a traceparent. */
function traceFetch(): void {
  const original = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    return inSpan(
      `${request.method}`,
      { 'http.request.method': request.method, 'url.full': `${url.origin}${url.pathname}` },
      async (span) => {
        propagation.inject(context.active(), request.headers, {
          set: (headers, key, value) => headers.set(key, value),
        });
        const response = await original(request);
        span.setAttribute('http.response.status_code', response.status);
        if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        return response;
      },
      SpanKind.CLIENT,
    );
  };
}
