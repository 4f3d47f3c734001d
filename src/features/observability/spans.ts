import { type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/**
 * Spans are made through the OpenTelemetry API, which does nothing until a provider is registered
 * (startTracing); code that would wrap something only to trace it asks tracingEnabled first.
 */
export const tracer = trace.getTracer('agent-tool-system');

let enabled = false;

export function tracingEnabled(): boolean {
  return enabled;
}

export function markTracingEnabled(): void {
  enabled = true;
}

/** Runs `work` in a span that ends when it settles, marked as an error when it throws. */
export function inSpan<T>(
  name: string,
  attributes: Record<string, string | number | boolean>,
  work: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}
