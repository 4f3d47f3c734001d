import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, vi } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { admin, approver, waitFor } from '../../support/lifecycle.js';
import { echoAsks, gatewayClient, gatewayTest as test } from '../../support/mcp-gateway.js';

const APPROVAL = 'agent-tool-system/approval';

describe('the MCP gateway at /mcp', () => {
  test('lists the tools the token’s profile may see under advertised names, with the await tool', async ({
    host: client,
  }) => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('test__echo');
    expect(names).toContain('gateway__await_approval');
    expect(names.every((n) => /^[a-zA-Z0-9_-]{1,64}$/.test(n))).toBe(true);
    const echo = tools.find((t) => t.name === 'test__echo')!;
    expect(echo.inputSchema).toMatchObject({ type: 'object', required: ['text'] });
    expect(echo._meta).toEqual({ 'agent-tool-system/name': 'test.echo' });
  });

  test('an auto-allowed call runs at once and answers its result', async ({ host: client }) => {
    const result = await client.callTool({ name: 'test__noop', arguments: {} });
    expect(result).toEqual({ content: [] });
  });

  test('a call reads whether its tool can run once: the request reuses what resolving the tool read', async ({
    services,
    host: client,
  }) => {
    const reads = vi.spyOn(services.policy, 'availabilityOf');
    expect(await client.callTool({ name: 'test__noop', arguments: {} })).toEqual({ content: [] });
    expect(reads).toHaveBeenCalledTimes(1);
  });

  test('a call held and approved within the hold answers the real result', async ({
    services,
    host: client,
  }) => {
    const answer = client.callTool({ name: 'test__echo', arguments: { text: 'hi' } });
    const call = await pendingCallOf(services);
    await services.calls.approve(call.id, {}, approver);
    expect(await answer).toEqual({
      content: [{ type: 'text', text: 'hi' }],
      structuredContent: { echoed: 'hi' },
    });
  });

  test('past the hold: a pending answer; approved later, an identical retry gets the outcome, the next one is a new call', async ({
    services,
    host: client,
  }) => {
    const pending = await client.callTool({ name: 'test__echo', arguments: { text: 'later' } });
    expect(pending.isError).toBe(true);
    const meta = (pending._meta as Record<string, { callId: string; status: string; consoleUrl: string }>)[
      APPROVAL
    ]!;
    expect(meta.status).toBe('pending_approval');
    expect(meta.consoleUrl).toMatch(new RegExp(`/console/#/calls/${meta.callId}$`));
    await services.calls.approve(meta.callId, {}, approver);
    const retry = await client.callTool({ name: 'test__echo', arguments: { text: 'later' } });
    expect(retry.content).toEqual([{ type: 'text', text: 'later' }]);
    const again = await client.callTool({ name: 'test__echo', arguments: { text: 'later' } });
    const second = (again._meta as Record<string, { callId: string }>)[APPROVAL]!;
    expect(second.callId).not.toBe(meta.callId);
  });

  test('a held call whose request carries a progress token hears numbered progress while it waits', async ({
    host: client,
  }) => {
    const heard: { progress: number; message?: string }[] = [];
    const pending = await client.callTool({ name: 'test__echo', arguments: { text: 'tick' } }, undefined, {
      onprogress: (p) => heard.push({ progress: p.progress, message: p.message }),
    });
    expect(pending.isError).toBe(true);
    expect(heard.length).toBeGreaterThan(1);
    expect(heard.map((p) => p.progress)).toEqual(heard.map((_, i) => i + 1));
    expect(heard[0]!.message).toBe('waiting for a person to approve the call');
  });

  test('a host that declares URL elicitation is offered the call’s console page while the call waits', async ({
    services,
    tokens,
    mcpUrl,
  }) => {
    await echoAsks(services);
    const client = await gatewayClient(mcpUrl, tokens.AGENT, undefined, { elicitation: { url: {} } });
    const offers: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      offers.push(request.params);
      return { action: 'accept' };
    });
    const answer = client.callTool({ name: 'test__echo', arguments: { text: 'offered' } });
    const call = await pendingCallOf(services);
    await waitFor(async () => offers.length > 0);
    await services.calls.approve(call.id, {}, approver);
    expect((await answer).content).toEqual([{ type: 'text', text: 'offered' }]);
    expect(offers).toEqual([
      {
        mode: 'url',
        elicitationId: call.id,
        url: `${new URL(mcpUrl).origin}/console/#/calls/${call.id}`,
        message: 'A tool call is waiting for your approval. Open the console to decide it.',
      },
    ]);
  });

  test('a host that does not declare URL elicitation is sent no elicitation', async ({ host: client }) => {
    const offers: unknown[] = [];
    client.fallbackRequestHandler = async (request) => {
      offers.push(request);
      return {};
    };
    const pending = await client.callTool({ name: 'test__echo', arguments: { text: 'quiet' } });
    expect(pending.isError).toBe(true);
    expect(offers).toEqual([]);
  });

  test('denied with feedback: an error result carrying it', async ({ services, host: client }) => {
    const answer = client.callTool({ name: 'test__echo', arguments: { text: 'no' } });
    const call = await pendingCallOf(services);
    await services.calls.deny(call.id, { feedback: 'Use the staging copy instead.' }, approver);
    const result = await answer;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('Use the staging copy instead.');
  });

  test('approved with edits: the edited arguments ran and the result says so', async ({
    services,
    host: client,
  }) => {
    const answer = client.callTool({ name: 'test__echo', arguments: { text: 'rm -rf' } });
    const call = await pendingCallOf(services);
    await services.calls.approve(call.id, { editedArguments: { text: 'ls' } }, approver);
    const result = await answer;
    expect(result.content).toEqual([
      { type: 'text', text: expect.stringContaining('edited this call') },
      { type: 'text', text: 'ls' },
    ]);
  });

  test('a hidden tool is answered exactly as one that does not exist, in the list and in a call', async ({
    services,
    tokens,
    mcpUrl,
  }) => {
    await echoAsks(services);
    await services.policy.set(
      { layer: 'PROFILE', scopeId: 'p1', toolPattern: 'test.dangerous', effect: 'DENY' },
      admin,
    );
    const client = await gatewayClient(mcpUrl, tokens.AGENT);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('test__dangerous');
    const hidden = await client.callTool({ name: 'test__dangerous', arguments: {} }).catch((e: Error) => e);
    const missing = await client
      .callTool({ name: 'test__nothing_here', arguments: {} })
      .catch((e: Error) => e);
    expect((hidden as Error).message.replace('test__dangerous', 'X')).toBe(
      (missing as Error).message.replace('test__nothing_here', 'X'),
    );
  });
});

/** The call waiting for a person, once the held request has made it. */
async function pendingCallOf(services: Services) {
  return waitFor(async () => {
    const page = await services.calls.page({ status: 'AWAITING_APPROVAL', limit: 10, inverted: false });
    return page[0] ?? null;
  });
}
