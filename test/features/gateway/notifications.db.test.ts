import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { eq } from 'drizzle-orm';
import { describe, expect, onTestFinished } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { mcpSubscriptions, mcpUpstreamSessions } from '../../../src/features/gateway/tables.js';
import { admin, approver, waitFor } from '../../support/lifecycle.js';
import { addServer, allowMcp, waitForState } from '../../support/mcp.js';
import { gatewayTest } from '../../support/mcp-gateway.js';
import { type NotifyMcpServer, startNotifyMcpHttp } from '../../support/mcp-notify-server.js';

/** A host of /mcp/up whose GET stream is known to be open, and what it heard on it. */
interface Host {
  client: Client;
  sessionId: string;
  updated: string[];
  listChanged: string[];
}

/**
 * An SDK client on `url` that declares roots; resolves once its GET stream (opened by the SDK
 * after initialize) has been answered, so that what the upstream sends from then on reaches it.
 */
async function hostOn(url: string, token: string): Promise<Host> {
  let streamOpen: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    streamOpen = resolve;
  });
  const client = new Client(
    { name: 'notify-host', version: '1.0.0' },
    { capabilities: { roots: { listChanged: true } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}`, 'x-profile-id': 'p1' } },
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (init?.method === 'GET' && response.ok) streamOpen();
      return response;
    },
  });
  const host: Host = { client, sessionId: '', updated: [], listChanged: [] };
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    host.updated.push(n.params.uri);
  });
  for (const schema of [ResourceListChangedNotificationSchema, PromptListChangedNotificationSchema])
    client.setNotificationHandler(schema, (n) => {
      host.listChanged.push(n.method);
    });
  await client.connect(transport);
  onTestFinished(() => client.close());
  await opened;
  host.sessionId = transport.sessionId!;
  return host;
}

/** /mcp/up in front of the notify server (test/support/mcp-notify-server.ts); its tools run without a person. */
const test = gatewayTest.extend<{ upstream: NotifyMcpServer; upUrl: string }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads the destructuring to learn a fixture's dependencies.
  upstream: async ({}, use) => {
    const upstream = await startNotifyMcpHttp('up-token');
    await use(upstream);
    await upstream.close();
  },
  upUrl: async ({ services, mcpUrl, upstream }, use) => {
    await addServer(services, {
      name: 'up',
      transport: 'STREAMABLE_HTTP',
      url: upstream.url,
      headers: [{ name: 'Authorization', value: 'Bearer up-token' }],
    });
    await waitForState(services, 'up', 'CONNECTED');
    for (const tool of ['slow', 'quick'])
      await services.registry.update(`mcp.up.${tool}`, { permission: 'ALWAYS_ALLOW' });
    await allowMcp(services, 'mcp.up.*');
    await use(`${mcpUrl}/up`);
  },
});

const upstreamSessionOf = async (services: Services, sessionId: string) => {
  const [row] = await services.database.db
    .select()
    .from(mcpUpstreamSessions)
    .where(eq(mcpUpstreamSessions.sessionId, sessionId));
  return row?.upstreamSessionId ?? null;
};

describe('resource subscriptions through /mcp/<server>', () => {
  test('an update reaches the session that subscribed, and not another session', async ({
    upstream,
    upUrl,
    tokens,
  }) => {
    const one = await hostOn(upUrl, tokens.AGENT);
    const other = await hostOn(upUrl, tokens.AGENT);
    await one.client.subscribeResource({ uri: 'watch://a' });
    await other.client.subscribeResource({ uri: 'watch://b' });
    await upstream.touch('watch://a');
    await upstream.touch('watch://b');
    await waitFor(async () => one.updated.length === 1 && other.updated.length === 1);
    // Each upstream session is sent its updates in order: `other`'s b came after any a it was sent.
    expect(one.updated).toEqual(['watch://a']);
    expect(other.updated).toEqual(['watch://b']);
  });

  test('the subscription is recorded in Postgres on an upstream session of the host session’s own', async ({
    services,
    upstream,
    upUrl,
    tokens,
  }) => {
    const host = await hostOn(upUrl, tokens.AGENT);
    await host.client.subscribeResource({ uri: 'watch://a' });
    const recorded = await services.database.db
      .select({ uri: mcpSubscriptions.uri })
      .from(mcpSubscriptions)
      .where(eq(mcpSubscriptions.sessionId, host.sessionId));
    expect(recorded).toEqual([{ uri: 'watch://a' }]);
    const upstreamSession = await upstreamSessionOf(services, host.sessionId);
    expect(upstream.subscriptions()).toEqual([[upstreamSession, 'watch://a']]);
  });

  test('unsubscribe stops the updates of that resource only', async ({ upstream, upUrl, tokens }) => {
    const host = await hostOn(upUrl, tokens.AGENT);
    await host.client.subscribeResource({ uri: 'watch://a' });
    await host.client.subscribeResource({ uri: 'watch://b' });
    await host.client.unsubscribeResource({ uri: 'watch://a' });
    await upstream.touch('watch://a');
    await upstream.touch('watch://b');
    await waitFor(async () => host.updated.length > 0);
    expect(host.updated).toEqual(['watch://b']);
  });

  test('ending the host session ends its upstream session and forgets its subscriptions', async ({
    services,
    upstream,
    upUrl,
    tokens,
  }) => {
    const host = await hostOn(upUrl, tokens.AGENT);
    await host.client.subscribeResource({ uri: 'watch://a' });
    const upstreamSession = await upstreamSessionOf(services, host.sessionId);
    expect(upstream.sessions()).toContain(upstreamSession);
    await (host.client.transport as StreamableHTTPClientTransport).terminateSession();
    expect(upstream.sessions()).not.toContain(upstreamSession);
    expect(upstream.subscriptions()).toEqual([]);
    expect(await upstreamSessionOf(services, host.sessionId)).toBeNull();
    expect(
      await services.database.db
        .select()
        .from(mcpSubscriptions)
        .where(eq(mcpSubscriptions.sessionId, host.sessionId)),
    ).toEqual([]);
  });

  test('a lost upstream session is replaced and subscribed again to what the host subscribed', async ({
    services,
    upstream,
    upUrl,
    tokens,
  }) => {
    const host = await hostOn(upUrl, tokens.AGENT);
    await host.client.subscribeResource({ uri: 'watch://a' });
    const lost = await upstreamSessionOf(services, host.sessionId);
    // The upstream forgets the session (as after a restart): the held stream ends, and is opened again on a new one.
    await upstream.endSession(lost!);
    const replaced = await waitFor(async () => {
      const now = await upstreamSessionOf(services, host.sessionId);
      return now !== lost && upstream.subscriptions().some(([s]) => s === now) && now;
    });
    expect(upstream.subscriptions()).toEqual([[replaced, 'watch://a']]);
    await waitFor(async () => {
      await upstream.touch('watch://a');
      return host.updated.length > 0;
    });
    expect(new Set(host.updated)).toEqual(new Set(['watch://a']));
  });
});

describe('list changes of the upstream reach the hosts’ streams', () => {
  test('resources and prompts list_changed reach every open stream once', async ({
    upstream,
    upUrl,
    tokens,
  }) => {
    const hosts = [await hostOn(upUrl, tokens.AGENT), await hostOn(upUrl, tokens.AGENT)];
    await upstream.changeLists();
    await waitFor(async () => hosts.every((h) => h.listChanged.length === 2));
    for (const host of hosts)
      expect(host.listChanged.sort()).toEqual([
        'notifications/prompts/list_changed',
        'notifications/resources/list_changed',
      ]);
  });
});

describe('the host’s notifications about its other requests', () => {
  test('notifications/cancelled of a running call cancels its upstream request', async ({
    services,
    upstream,
    upUrl,
    tokens,
  }) => {
    const host = await hostOn(upUrl, tokens.AGENT);
    const controller = new AbortController();
    const call = host.client.request(
      { method: 'tools/call', params: { name: 'slow', arguments: {} } },
      CallToolResultSchema,
      { signal: controller.signal },
    );
    await waitFor(async () => upstream.running.length === 1);
    const [started] = await services.calls.page({ status: 'STARTED', limit: 10, inverted: false });
    controller.abort('the user pressed stop');
    await expect(call).rejects.toThrow();
    await waitFor(async () => upstream.cancelled.length === 1);
    const ended = await waitFor(async () => {
      const row = await services.calls.get(started!.id);
      return row?.status === 'FAILED' && row;
    });
    expect(ended.error?.code).toBe('cancelled');
  });

  test('notifications/cancelled of a call held for a person ends the hold only: the call still waits, and its outcome is delivered to the retry', async ({
    services,
    upUrl,
    tokens,
  }) => {
    await services.policy.set(
      { layer: 'USER', scopeId: 'u1', toolPattern: 'mcp.up.quick', effect: 'ASK' },
      admin,
    );
    const host = await hostOn(upUrl, tokens.AGENT);
    const controller = new AbortController();
    const call = host.client.request(
      { method: 'tools/call', params: { name: 'quick', arguments: {} } },
      CallToolResultSchema,
      { signal: controller.signal },
    );
    const waiting = await waitFor(async () => {
      const page = await services.calls.page({ status: 'AWAITING_APPROVAL', limit: 10, inverted: false });
      return page[0] ?? null;
    });
    await waitFor(async () => services.mcpConnections.relays.of(waiting.id, 'mcp.up.quick') !== null);
    controller.abort('the user pressed stop');
    await expect(call).rejects.toThrow();
    // The cancel reached the request holding the call: it no longer holds it.
    await waitFor(async () => services.mcpConnections.relays.of(waiting.id, 'mcp.up.quick') === null);
    expect((await services.calls.get(waiting.id))?.status).toBe('AWAITING_APPROVAL');
    await services.calls.approve(waiting.id, {}, approver);
    const retried = await host.client.callTool({ name: 'quick', arguments: {} });
    expect(retried.content).toEqual([{ type: 'text', text: 'quick' }]);
  });

  test('notifications/roots/list_changed reaches the upstream sessions of that host session', async ({
    upstream,
    upUrl,
    tokens,
  }) => {
    const host = await hostOn(upUrl, tokens.AGENT);
    // A call leaves its upstream relay session idle, kept for the host session's next call.
    expect((await host.client.callTool({ name: 'quick', arguments: {} })).content).toEqual([
      { type: 'text', text: 'quick' },
    ]);
    const before = upstream.sessions();
    await host.client.sendRootsListChanged();
    const told = await waitFor(async () => upstream.rootsChanged.length > 0 && upstream.rootsChanged);
    expect(told).toHaveLength(1);
    expect(before).toContain(told[0]);
  });
});
