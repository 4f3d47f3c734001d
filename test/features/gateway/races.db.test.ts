import { eq } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { runs } from '../../../src/calls/tables.js';
import { mcpSessions } from '../../../src/features/gateway/tables.js';
import { admin, approver, waitFor } from '../../support/lifecycle.js';
import { gatewayClient, gatewayTest as test } from '../../support/mcp-gateway.js';

const APPROVAL = 'agent-tool-system/approval';
const pendingOf = (result: { _meta?: unknown }) =>
  (result._meta as Record<string, { callId: string; status: string }>)[APPROVAL]!;

/** Requests the host makes at the same moment, each its own HTTP request. */
const atOnce = <T>(n: number, request: () => Promise<T>) => Promise.all(Array.from({ length: n }, request));

describe('concurrent requests through the MCP gateway', () => {
  test('identical first calls at once, from two sessions, make one call and one approval', async ({
    services,
    tokens,
    mcpUrl,
    host,
  }) => {
    const other = await gatewayClient(mcpUrl, tokens.AGENT);
    const answers = await Promise.all(
      [host, host, other, other].map((client) =>
        client.callTool({ name: 'test__echo', arguments: { text: 'once' } }),
      ),
    );
    const waiting = await services.calls.page({ status: 'AWAITING_APPROVAL', limit: 10, inverted: false });
    expect(waiting).toHaveLength(1);
    expect(answers.map((a) => pendingOf(a).callId)).toEqual(Array(4).fill(waiting[0]!.id));

    await services.calls.approve(waiting[0]!.id, {}, approver);
    const retried = await host.callTool({ name: 'test__echo', arguments: { text: 'once' } });
    expect(retried.content).toEqual([{ type: 'text', text: 'once' }]);
    expect(await services.calls.page({ limit: 10, inverted: false })).toHaveLength(1);
  });

  test('the first requests of one session at once make the session one run', async ({ services, host }) => {
    await atOnce(6, () => host.callTool({ name: 'test__noop', arguments: {} }));
    const calls = await services.calls.page({ limit: 10, inverted: false });
    expect(calls).toHaveLength(6);
    const runIds = new Set(calls.map((c) => c.runId));
    expect(runIds.size).toBe(1);
    const sessionId = (host.transport as { sessionId?: string }).sessionId!;
    const [session] = await services.database.db
      .select()
      .from(mcpSessions)
      .where(eq(mcpSessions.id, sessionId));
    expect(session!.runId).toBe(calls[0]!.runId);
    // A run made by a request that lost the race holds no call and is completed at once.
    const made = await services.database.db.select().from(runs);
    for (const run of made.filter((r) => r.id !== session!.runId)) expect(run.status).toBe('COMPLETED');
  });

  test('requests without a session at once share the day’s run', async ({ services, tokens, mcpUrl }) => {
    await services.policy.set(
      { layer: 'PROFILE', scopeId: 'p1', toolPattern: 'test.*', effect: 'ALLOW' },
      admin,
    );
    const post = (id: number) =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens.AGENT}`,
          'x-profile-id': 'p1',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'test__noop', arguments: {} },
        }),
      }).then((r) => r.text());
    await Promise.all([1, 2, 3, 4].map(post));
    const calls = await waitFor(async () => {
      const page = await services.calls.page({ limit: 10, inverted: false });
      return page.length === 4 ? page : null;
    });
    expect(new Set(calls.map((c) => c.runId)).size).toBe(1);
  });
});
