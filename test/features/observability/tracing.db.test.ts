import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { startTracing } from '../../../src/features/observability/index.js';
import { allow, newRun, waitFor } from '../../support/lifecycle.js';
import { observedTest as test } from './observed.js';

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

/** A local OTLP/HTTP receiver: the JSON exporter posts ExportTraceServiceRequest bodies to /v1/traces. */
const spans: Span[] = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => {
    body += chunk;
  });
  req.on('end', () => {
    if (req.url === '/v1/traces') {
      const request = JSON.parse(body) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: Span[] }> }>;
      };
      for (const r of request.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
let stopTracing: () => Promise<void> = async () => {};

// Tracing is started before the services are built, as startApp does: that is when it is decided.
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  stopTracing = await startTracing({
    endpoint: `http://127.0.0.1:${port}`,
    serviceName: 'ats-test',
    scheduledDelayMs: 50,
  });
});
afterAll(async () => {
  await stopTracing();
  receiver.close();
});

test('one tool call over HTTP is one trace: the request, its GraphQL operation, the dispatch and the queries under it', async ({
  services,
  serve,
  tokens,
}) => {
  await allow(services);
  const run = await newRun(services);
  const url = await serve();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.ADMIN}` },
    body: JSON.stringify({
      query: `mutation RequestNoop { requestToolCall(input: { runId: "${run.id}", name: "test.noop" }) { status } }`,
    }),
  });
  expect((await response.json()).data.requestToolCall.status).toBe('COMPLETED');
  const http = await waitFor(async () => spans.find((s) => s.name === 'POST /graphql'));
  const trace = await waitFor(async () => {
    const mine = spans.filter((s) => s.traceId === http.traceId);
    return mine.some((s) => s.name === 'tool.dispatch') && mine;
  });
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  const parentName = (s: Span) => (s.parentSpanId ? byId.get(s.parentSpanId)?.name : undefined);
  const operation = trace.find((s) => s.name === 'mutation RequestNoop')!;
  expect(parentName(operation)).toBe('POST /graphql');
  const dispatch = trace.find((s) => s.name === 'tool.dispatch')!;
  const ancestors: string[] = [];
  for (let s: Span | undefined = dispatch; s?.parentSpanId; s = byId.get(s.parentSpanId))
    ancestors.push(parentName(s)!);
  expect(ancestors).toContain('mutation RequestNoop');
  const queries = trace.filter((s) => s.name === 'db.query');
  expect(queries.length).toBeGreaterThan(0);
  expect(queries.every((q) => byId.has(q.parentSpanId!))).toBe(true);
});
