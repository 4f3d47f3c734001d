import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { admin, approver, waitFor } from '../../support/lifecycle.js';
import { addServer, allowMcp, stdioTestServer, waitForState } from '../../support/mcp.js';
import { gatewayClient, gatewayTest } from '../../support/mcp-gateway.js';
import { startRelayMcpHttp } from '../../support/mcp-relay-server.js';

const HOST_CAPABILITIES = { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } };

/** A host on /mcp/up in front of the relay server (test/support/mcp-relay-server.ts), whose tools p1 calls without a person. */
const test = gatewayTest.extend<{ upUrl: string; upHost: Client }>({
  upUrl: async ({ services, mcpUrl }, use) => {
    const upstream = await startRelayMcpHttp('up-token');
    await addServer(services, {
      name: 'up',
      transport: 'STREAMABLE_HTTP',
      url: upstream.url,
      headers: [{ name: 'Authorization', value: 'Bearer up-token' }],
    });
    await waitForState(services, 'up', 'CONNECTED');
    for (const tool of ['logs', 'progress', 'sample', 'elicit', 'roots'])
      await services.registry.update(`mcp.up.${tool}`, { permission: 'ALWAYS_ALLOW' });
    await allowMcp(services, 'mcp.up.*');
    await use(`${mcpUrl}/up`);
    await upstream.close();
  },
  upHost: async ({ upUrl, tokens }, use) => {
    await use(await gatewayClient(upUrl, tokens.AGENT, { 'x-profile-id': 'p1' }, HOST_CAPABILITIES));
  },
});

const textOf = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]!.text;

/** Makes calls of `name` wait for a person (an ASK rule for the token's user). */
async function asks(services: Services, name: string) {
  await services.policy.set({ layer: 'USER', scopeId: 'u1', toolPattern: name, effect: 'ASK' }, admin);
}

describe('the relay of /mcp/<server>: the upstream’s messages during a call reach the host request that made it', () => {
  test('log messages reach the host, in order, before the result', async ({ upHost }) => {
    const heard: unknown[] = [];
    upHost.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      heard.push(n.params.data);
    });
    const result = await upHost.callTool({ name: 'logs', arguments: {} });
    expect(textOf(result)).toBe('logged');
    expect(heard).toEqual(['first', 'second']);
  });

  test('progress reaches the host under its own progress token, in order', async ({ upHost }) => {
    const heard: unknown[] = [];
    await upHost.request(
      { method: 'tools/call', params: { name: 'progress', arguments: {} } },
      CallToolResultSchema,
      { onprogress: (p) => heard.push(p) },
    );
    expect(heard).toEqual([
      { progress: 0, total: 100, message: 'at 0' },
      { progress: 50, total: 100, message: 'at 50' },
      { progress: 100, total: 100, message: 'at 100' },
    ]);
  });

  test('a sampling request is answered by the host’s handler and the answer reaches the server', async ({
    upHost,
  }) => {
    upHost.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
      role: 'assistant',
      model: 'host-model',
      content: {
        type: 'text',
        text: `hi, to: ${(request.params.messages[0]!.content as { text: string }).text}`,
      },
    }));
    const result = await upHost.callTool({ name: 'sample', arguments: {} });
    expect(JSON.parse(textOf(result))).toEqual({
      role: 'assistant',
      model: 'host-model',
      content: { type: 'text', text: 'hi, to: Say hi' },
    });
  });

  test('an elicitation form with defaults and enums reaches the host unchanged, and its answer the server', async ({
    upHost,
  }) => {
    let asked: unknown;
    upHost.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked = request.params;
      return { action: 'accept', content: { name: 'Grace', color: 'red' } };
    });
    const result = await upHost.callTool({ name: 'elicit', arguments: {} });
    expect(asked).toEqual({
      message: 'Who are you?',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', default: 'Ada' },
          color: { type: 'string', enum: ['red', 'green'], default: 'green' },
        },
      },
    });
    expect(JSON.parse(textOf(result))).toEqual({
      action: 'accept',
      content: { name: 'Grace', color: 'red' },
    });
  });

  test('roots/list is answered by the host', async ({ upHost }) => {
    upHost.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: [{ uri: 'file:///work/project', name: 'project' }],
    }));
    const result = await upHost.callTool({ name: 'roots', arguments: {} });
    expect(JSON.parse(textOf(result))).toEqual({ roots: [{ uri: 'file:///work/project', name: 'project' }] });
  });

  test('the host’s JSON-RPC error goes back to the server with its code', async ({ upUrl, tokens }) => {
    const host = await gatewayClient(upUrl, tokens.AGENT, { 'x-profile-id': 'p1' }, {});
    const result = await host.callTool({ name: 'sample', arguments: {} });
    expect(JSON.parse(textOf(result))).toEqual({
      error: { code: -32601, message: 'MCP error -32601: Method not found' },
    });
  });

  test('a call held for a person and approved within the hold relays to the request that holds it', async ({
    services,
    upHost,
  }) => {
    await asks(services, 'mcp.up.roots');
    upHost.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///held' }] }));
    const answer = upHost.callTool({ name: 'roots', arguments: {} });
    const call = await waitFor(async () => {
      const page = await services.calls.page({ status: 'AWAITING_APPROVAL', limit: 10, inverted: false });
      return page[0] ?? null;
    });
    await services.calls.approve(call.id, {}, approver);
    expect(JSON.parse(textOf(await answer))).toEqual({ roots: [{ uri: 'file:///held' }] });
  });

  test('a held call hears the waiting progress, then the upstream’s, each value above the last', async ({
    services,
    upHost,
  }) => {
    await asks(services, 'mcp.up.progress');
    const heard: { progress: number; message?: string }[] = [];
    let firstHeard: () => void = () => {};
    const waited = new Promise<void>((resolve) => {
      firstHeard = resolve;
    });
    const answer = upHost.request(
      { method: 'tools/call', params: { name: 'progress', arguments: {} } },
      CallToolResultSchema,
      {
        onprogress: (p) => {
          heard.push({ progress: p.progress, message: p.message });
          firstHeard();
        },
      },
    );
    await waited;
    const call = await waitFor(async () => {
      const page = await services.calls.page({ status: 'AWAITING_APPROVAL', limit: 10, inverted: false });
      return page[0] ?? null;
    });
    await services.calls.approve(call.id, {}, approver);
    expect(textOf(await answer)).toBe('done');
    const waiting = heard.filter((p) => p.message === 'waiting for a person to approve the call');
    // The upstream's 0 is not above the waiting ones, so it is left out.
    expect(heard).toEqual([
      ...waiting,
      { progress: 50, message: 'at 50' },
      { progress: 100, message: 'at 100' },
    ]);
    expect(waiting.map((p) => p.progress)).toEqual(waiting.map((_, i) => i + 1));
  });

  test('a call that runs with no host request attached: the server’s request gets the documented error', async ({
    services,
    upHost,
  }) => {
    await asks(services, 'mcp.up.roots');
    upHost.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }));
    // The hold ends first: the call is approved after the host's request has ended.
    const pending = await upHost.callTool({ name: 'roots', arguments: {} });
    const { callId } = (pending._meta as Record<string, { callId: string }>)['agent-tool-system/approval']!;
    await services.calls.approve(callId, {}, approver);
    const done = await waitFor(async () => {
      const call = await services.calls.get(callId);
      return call?.status === 'COMPLETED' && call;
    });
    const answered = JSON.parse((done.result!.content[0] as { text: string }).text);
    expect(answered.error.code).toBe(-32601);
    expect(answered.error.message).toMatch(
      /^MCP error -32601: No MCP host is attached to this call, so roots\/list cannot reach one/,
    );
  });
});

describe('the relay of a stdio upstream (one shared child process)', () => {
  gatewayTest('progress reaches the host under its own token', async ({ services, mcpUrl, tokens }) => {
    await addServer(services, stdioTestServer('t'));
    await waitForState(services, 't', 'CONNECTED');
    await services.registry.update('mcp.t.progress', { permission: 'ALWAYS_ALLOW' });
    await allowMcp(services, 'mcp.t.*');
    const host = await gatewayClient(`${mcpUrl}/t`, tokens.AGENT);
    const heard: unknown[] = [];
    const result = await host.request(
      { method: 'tools/call', params: { name: 'progress', arguments: { steps: 3, intervalMs: 1 } } },
      CallToolResultSchema,
      { onprogress: (p) => heard.push(p) },
    );
    expect(textOf(result)).toBe('done in 3 steps');
    expect(heard).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
  });
});
