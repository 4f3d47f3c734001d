import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { approver } from '../../support/lifecycle.js';
import { echoAsks, gatewayClient, gatewayTest as test } from '../../support/mcp-gateway.js';

const APPROVAL = 'agent-tool-system/approval';
const pendingOf = (result: { _meta?: unknown }) =>
  (result._meta as Record<string, { callId: string }>)[APPROVAL]!;

/** One JSON-RPC request with no Mcp-Session-Id: a client that never initialized. */
async function sessionless(mcpUrl: string, token: string, name: string) {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'x-profile-id': 'p1',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
  });
  expect(response.status).toBe(200);
  return response.text();
}

async function runsOfCalls(services: Services) {
  const calls = await services.calls.page({ limit: 20, inverted: false });
  return calls.map((c) => c.runId);
}

describe('which run a call through the MCP gateway belongs to', () => {
  test('X-Run-Id naming a run this token created: the calls go to that run', async ({
    services,
    tokens,
    mcpUrl,
    gql,
    host,
  }) => {
    const made = await gql('mutation { createRun(input: { profileId: "p1" }) { id } }', {}, tokens.AGENT);
    const runId = made.data?.createRun.id as string;
    const named = await gatewayClient(mcpUrl, tokens.AGENT, { 'x-profile-id': 'p1', 'x-run-id': runId });
    await named.callTool({ name: 'test__noop', arguments: {} });
    await named.callTool({ name: 'test__noop', arguments: {} });
    await host.callTool({ name: 'test__noop', arguments: {} });
    const [first, second, unnamed] = await runsOfCalls(services);
    expect([first, second]).toEqual([runId, runId]);
    expect(unnamed).not.toBe(runId);
  });

  test('X-Run-Id naming another user’s run: the call is refused, naming the run, and nothing is recorded', async ({
    services,
    tokens,
    mcpUrl,
    gql,
  }) => {
    await echoAsks(services);
    const other = await services.tokens.create({
      name: 'u2-agent',
      role: 'AGENT',
      userId: 'u2',
      profiles: ['p1'],
    });
    const made = await gql('mutation { createRun(input: { profileId: "p1" }) { id } }', {}, other.secret);
    const runId = made.data?.createRun.id as string;
    const named = await gatewayClient(mcpUrl, tokens.AGENT, { 'x-profile-id': 'p1', 'x-run-id': runId });
    const refused = await named.callTool({ name: 'test__noop', arguments: {} });
    expect(refused).toEqual({
      content: [{ type: 'text', text: `X-Run-Id: no run ${runId} that this token created` }],
      isError: true,
    });
    expect(await runsOfCalls(services)).toEqual([]);
  });

  test('requests without a session: one run per token, endpoint, client and day, which shows the client as unknown', async ({
    services,
    tokens,
    mcpUrl,
    gql,
    host,
  }) => {
    await sessionless(mcpUrl, tokens.AGENT, 'test__noop');
    await sessionless(mcpUrl, tokens.AGENT, 'test__noop');
    await host.callTool({ name: 'test__noop', arguments: {} });
    const [first, second, inSession] = await runsOfCalls(services);
    expect(second).toBe(first);
    expect(inSession).not.toBe(first);
    const res = await gql(`{ run(id: "${first}") { mcpClient { name version server sessionId } } }`);
    expect(res.data?.run.mcpClient).toEqual({
      name: 'unknown',
      version: 'unknown',
      server: null,
      sessionId: null,
    });
    const other = await services.tokens.create({
      name: 'u1-other',
      role: 'AGENT',
      userId: 'u1',
      profiles: ['p1'],
    });
    await sessionless(mcpUrl, other.secret, 'test__noop');
    expect((await runsOfCalls(services))[3]).not.toBe(first);
  });

  test('approved "for this run": the next identical call of the session runs without asking', async ({
    services,
    host,
  }) => {
    const first = pendingOf(await host.callTool({ name: 'test__echo', arguments: { text: 'again' } }));
    await services.calls.approve(first.callId, { scope: 'RUN' }, approver);
    const delivered = await host.callTool({ name: 'test__echo', arguments: { text: 'again' } });
    expect(delivered.content).toEqual([{ type: 'text', text: 'again' }]);
    const granted = await host.callTool({ name: 'test__echo', arguments: { text: 'again' } });
    expect(granted.content).toEqual([{ type: 'text', text: 'again' }]);
    const calls = await services.calls.page({ limit: 10, inverted: false });
    expect(calls.map((c) => c.status)).toEqual(['COMPLETED', 'COMPLETED']);
    expect(calls[1]!.decision?.reason).toMatch(/^approved without asking by RUN grant /);
  });
});
