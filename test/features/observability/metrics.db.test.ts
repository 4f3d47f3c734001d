import { describe, expect } from 'vitest';
import { wsClient } from '../../support/app-server.js';
import { admin, agent, allow, approver, newRun, waitFor } from '../../support/lifecycle.js';
import { sample, observedTest as test } from './observed.js';

const METRICS_TOKEN = 'scraper-secret-0123456789';

async function scrape(url: string, token?: string) {
  const response = await fetch(new URL('/metrics', url), {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: response.status, text: await response.text() };
}

describe('/metrics on the API port', () => {
  test('refuses a scrape without a token and with a token that is not an admin’s', async ({
    serve,
    tokens,
  }) => {
    const url = await serve({ metrics: { token: METRICS_TOKEN, isAdmin: async () => false } });
    expect((await scrape(url)).status).toBe(401);
    expect((await scrape(url, tokens.VIEWER)).status).toBe(401);
    expect((await scrape(url, 'scraper-secret-wrong-length')).status).toBe(401);
  });

  test('serves METRICS_TOKEN in the Prometheus text format', async ({ serve }) => {
    const url = await serve({ metrics: { token: METRICS_TOKEN } });
    const { status, text } = await scrape(url, METRICS_TOKEN);
    expect(status).toBe(200);
    expect(text).toContain('# TYPE ats_tool_calls_total counter');
    expect(text).toContain('# TYPE ats_pending_approvals gauge');
  });

  test('is not served when the server is given no access rule (METRICS_PORT serves it instead)', async ({
    serve,
  }) => {
    const url = await serve();
    expect((await scrape(url, METRICS_TOKEN)).status).not.toBe(200);
  });
});

describe('what is counted', () => {
  test('a finished call by tool, source and final status, with its duration from request to end', async ({
    services,
    serve,
  }) => {
    const url = await serve({ metrics: {} });
    await allow(services);
    const run = await newRun(services);
    await services.calls.request({ runId: run.id, name: 'test.noop' }, agent);
    await services.calls.request({ runId: run.id, name: 'test.fail_recoverable' }, agent);
    const labels = { tool: 'test.noop', source: 'BUILT_IN', status: 'COMPLETED' };
    const text = await waitFor(async () => {
      const { text } = await scrape(url);
      return (
        sample(text, 'ats_tool_calls_total', {
          tool: 'test.fail_recoverable',
          source: 'BUILT_IN',
          status: 'FAILED',
        }) === 1 && text
      );
    });
    expect(sample(text, 'ats_tool_calls_total', labels)).toBe(1);
    expect(sample(text, 'ats_tool_call_duration_seconds_count', labels)).toBe(1);
  });

  test('pending approvals while a call waits, and the wait once it is decided', async ({
    services,
    serve,
  }) => {
    const url = await serve({ metrics: {} });
    await allow(services);
    await services.policy.set(
      { layer: 'USER', scopeId: 'u1', toolPattern: 'test.echo', effect: 'ASK' },
      admin,
    );
    const run = await newRun(services);
    const held = await services.calls.request(
      { runId: run.id, name: 'test.echo', arguments: { text: 'x' } },
      agent,
    );
    expect(sample((await scrape(url)).text, 'ats_pending_approvals')).toBe(1);
    await services.calls.approve(held.id, { reason: 'fine', argumentsHash: held.argumentsHash }, approver);
    const text = await waitFor(async () => {
      const { text } = await scrape(url);
      return (
        sample(text, 'ats_tool_calls_total', {
          tool: 'test.echo',
          source: 'BUILT_IN',
          status: 'COMPLETED',
        }) === 1 && text
      );
    });
    expect(sample(text, 'ats_pending_approvals')).toBe(0);
    expect(
      sample(text, 'ats_tool_call_approval_wait_seconds_count', { tool: 'test.echo', outcome: 'approved' }),
    ).toBe(1);
  });

  test('journal events delivered to this process, and their lag', async ({ services, serve }) => {
    const url = await serve({ metrics: {} });
    await newRun(services);
    const text = await waitFor(async () => {
      const { text } = await scrape(url);
      return sample(text, 'ats_journal_events_delivered_total') >= 1 && text;
    });
    expect(sample(text, 'ats_journal_lag_seconds_count')).toBe(
      sample(text, 'ats_journal_events_delivered_total'),
    );
  });

  test('an open graphql-ws subscription by root field and transport, until it ends', async ({
    serve,
    tokens,
  }) => {
    const url = await serve({ metrics: {} });
    const labels = { field: 'journalEvents', transport: 'graphql-ws' };
    const client = wsClient(url, { authorization: `Bearer ${tokens.ADMIN}` });
    const stop = client.subscribe(
      { query: 'subscription { journalEvents { seq } }' },
      { next() {}, error() {}, complete() {} },
    );
    await waitFor(async () => sample((await scrape(url)).text, 'ats_open_subscriptions', labels) === 1);
    stop();
    await waitFor(
      async () => sample((await scrape(url)).text, 'ats_open_subscriptions', labels) === 0 || 'closed',
    );
    expect(sample((await scrape(url)).text, 'ats_open_subscriptions', labels)).toBe(0);
  });

  test('requests by method, route and status; a made-up path is one route, "other"', async ({ serve }) => {
    const url = await serve({ metrics: {} });
    await fetch(new URL('/made/up/1', url));
    await fetch(new URL('/made/up/2', url));
    const { text } = await scrape(url);
    expect(sample(text, 'ats_http_requests_total', { method: 'GET', route: 'other', status: '404' })).toBe(2);
  });
});
