import { isNull, sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { mcpPendingCalls } from '../../../src/features/gateway/tables.js';
import { admin, approver, waitFor } from '../../support/lifecycle.js';
import { echoAsks, gatewayClient, gatewayTest as test } from '../../support/mcp-gateway.js';

const APPROVAL = 'agent-tool-system/approval';
const pendingOf = (result: { _meta?: unknown }) =>
  (result._meta as Record<string, { callId: string; status: string }>)[APPROVAL]!;

async function pendingCallOf(services: Services) {
  return waitFor(async () => {
    const page = await services.calls.page({ status: 'AWAITING_APPROVAL', limit: 10, inverted: false });
    return page[0] ?? null;
  });
}

describe('calls through the MCP gateway', () => {
  test('expired: an error result that says nobody decided, not a denial', async ({
    services,
    host: client,
  }) => {
    const answer = client.callTool({ name: 'test__echo', arguments: { text: 'late' } });
    const call = await pendingCallOf(services);
    await services.database.db.execute(
      sql`update tool_calls set approval_expires_at = now() - interval '1 second' where id = ${call.id}`,
    );
    await services.dispatcher.expireApprovals();
    const result = await answer;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('Nobody decided');
    expect(JSON.stringify(result.content)).not.toContain('denied');
  });

  test('a token revoked while its call is held ends the held request with an error', async ({
    services,
    tokens,
    mcpUrl,
  }) => {
    await echoAsks(services);
    const { secret, token } = await services.tokens.create({
      name: 'revoked-mid-hold',
      role: 'AGENT',
      userId: 'u1',
      profiles: ['p1'],
    });
    const client = await gatewayClient(mcpUrl, secret, {});
    const answer = client
      .callTool({ name: 'test__echo', arguments: { text: 'held' } })
      .catch((e: Error) => e);
    await pendingCallOf(services);
    await services.tokens.revoke(token.id);
    const outcome = await answer;
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toContain('revoked');
    expect(tokens.AGENT).toBeTruthy();
  });

  test('two identical retries at once: the outcome is delivered to one; the other becomes a new call', async ({
    services,
    tokens,
    mcpUrl,
    host: client,
  }) => {
    const first = pendingOf(await client.callTool({ name: 'test__echo', arguments: { text: 'race' } }));
    const other = await gatewayClient(mcpUrl, tokens.AGENT);
    const retries = [
      client.callTool({ name: 'test__echo', arguments: { text: 'race' } }),
      other.callTool({ name: 'test__echo', arguments: { text: 'race' } }),
    ];
    await waitFor(async () => {
      const open = await services.database.db
        .select()
        .from(mcpPendingCalls)
        .where(isNull(mcpPendingCalls.deliveredAt));
      return open.length === 1;
    });
    await services.calls.approve(first.callId, {}, approver);
    const results = await Promise.all(retries);
    const delivered = results.filter((r) => !r.isError);
    expect(delivered.map((r) => r.content)).toEqual([[{ type: 'text', text: 'race' }]]);
    const asksAgain = results.find((r) => r.isError)!;
    expect(pendingOf(asksAgain).callId).not.toBe(first.callId);
  });

  test('each session’s calls are one run that shows the host’s clientInfo', async ({
    services,
    gql,
    host: client,
  }) => {
    await client.callTool({ name: 'test__noop', arguments: {} });
    await client.callTool({ name: 'test__noop', arguments: {} });
    const calls = await services.calls.page({ limit: 10, inverted: false });
    expect(new Set(calls.map((c) => c.runId)).size).toBe(1);
    const sessionId = (client.transport as { sessionId?: string }).sessionId;
    const res = await gql(
      `{ run(id: "${calls[0]!.runId}") { mcpClient { name version server sessionId } } }`,
    );
    expect(res.data?.run.mcpClient).toEqual({
      name: 'gateway-test-host',
      version: '3.1.4',
      server: null,
      sessionId,
    });
  });

  test('a host with an open stream is told when the policy changes what it may see', async ({
    services,
    host: client,
  }) => {
    let told = 0;
    client.setNotificationHandler(
      (await import('@modelcontextprotocol/sdk/types.js')).ToolListChangedNotificationSchema,
      () => {
        told++;
      },
    );
    await waitFor(async () => services.tokenWatch.size > 0);
    await services.policy.set(
      { layer: 'PROFILE', scopeId: 'p1', toolPattern: 'test.dangerous', effect: 'DENY' },
      admin,
    );
    await waitFor(async () => told > 0);
    expect(told).toBe(1);
  });
});
