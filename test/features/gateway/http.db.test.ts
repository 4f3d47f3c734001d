import { describe, expect } from 'vitest';
import { echoAsks, gatewayClient, gatewayTest as test } from '../../support/mcp-gateway.js';

const ACCEPT = 'application/json, text/event-stream';
const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body,
  });
const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

/** The JSON-RPC message of a response, whether it came as JSON or as one SSE event. */
async function messageOf(response: Response) {
  const text = await response.text();
  const data = text.startsWith('{')
    ? text
    : text
        .split('\n')
        .find((l) => l.startsWith('data: '))!
        .slice(6);
  return JSON.parse(data) as { id?: unknown; error?: { code: number; message: string }; result?: unknown };
}

describe('the MCP gateway over HTTP', () => {
  test('without a token: 401 naming the resource metadata, which both well-known paths serve', async ({
    mcpUrl,
  }) => {
    const response = await post(mcpUrl, ping);
    expect(response.status).toBe(401);
    const base = mcpUrl.replace(/\/mcp$/, '');
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const metadata = await (await fetch(`${base}${path}`)).json();
      expect(metadata).toMatchObject({
        resource: `${base}/mcp`,
        authorization_servers: [],
        bearer_methods_supported: ['header'],
      });
    }
  });

  test('an invalid token gets 401, another role 403', async ({ tokens, mcpUrl }) => {
    expect((await post(mcpUrl, ping, { authorization: 'Bearer ats_nope' })).status).toBe(401);
    const approver = await post(mcpUrl, ping, { authorization: `Bearer ${tokens.APPROVER}` });
    expect(approver.status).toBe(403);
    expect((await messageOf(approver)).error?.message).toContain('AGENT');
  });

  test('a foreign Origin gets 403; an allowed or loopback one is served', async ({ tokens, mcpUrl }) => {
    const auth = { authorization: `Bearer ${tokens.AGENT}`, 'x-profile-id': 'p1' };
    expect((await post(mcpUrl, ping, { ...auth, origin: 'http://evil.example' })).status).toBe(403);
    expect((await post(mcpUrl, ping, { ...auth, origin: 'https://allowed.example' })).status).toBe(200);
    expect((await post(mcpUrl, ping, { ...auth, origin: 'http://localhost:5173' })).status).toBe(200);
  });

  test('a body over the limit gets 413, malformed JSON -32700, a non-JSON-RPC body -32600, an unknown method -32601', async ({
    tokens,
    mcpUrl,
  }) => {
    const auth = { authorization: `Bearer ${tokens.AGENT}`, 'x-profile-id': 'p1' };
    expect((await post(mcpUrl, JSON.stringify({ pad: 'x'.repeat(5000) }), auth)).status).toBe(413);
    const malformed = await post(mcpUrl, '{"jsonrpc": ', auth);
    expect([malformed.status, (await messageOf(malformed)).error?.code]).toEqual([400, -32700]);
    const invalid = await post(mcpUrl, JSON.stringify({ hello: 'world' }), auth);
    expect([invalid.status, (await messageOf(invalid)).error?.code]).toEqual([400, -32600]);
    const unknown = await post(
      mcpUrl,
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'nothing/here' }),
      auth,
    );
    expect((await messageOf(unknown)).error?.code).toBe(-32601);
  });

  test('tools/list and tools/call, answered without the SDK transport, keep its checks and its SSE answer', async ({
    tokens,
    mcpUrl,
  }) => {
    const auth = { authorization: `Bearer ${tokens.AGENT}`, 'x-profile-id': 'p1' };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const jsonOnly = await post(mcpUrl, list, { ...auth, accept: 'application/json' });
    expect([jsonOnly.status, (await messageOf(jsonOnly)).error?.code]).toEqual([406, -32000]);
    const oldVersion = await post(mcpUrl, list, { ...auth, 'mcp-protocol-version': '1999-01-01' });
    expect([oldVersion.status, (await messageOf(oldVersion)).error?.message]).toEqual([
      400,
      expect.stringContaining('Unsupported protocol version: 1999-01-01'),
    ]);
    const listed = await post(mcpUrl, list, auth);
    expect([listed.status, listed.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
    expect(await messageOf(listed)).toMatchObject({ id: 1, result: { tools: expect.any(Array) } });
    const nameless = await post(
      mcpUrl,
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { arguments: {} } }),
      auth,
    );
    expect((await messageOf(nameless)).error?.code).toBe(-32602);
  });

  test('an unknown or ended session gets 404; DELETE ends one', async ({ services, tokens, mcpUrl }) => {
    await echoAsks(services);
    const auth = { authorization: `Bearer ${tokens.AGENT}`, 'x-profile-id': 'p1' };
    const unknown = await post(mcpUrl, ping, { ...auth, 'mcp-session-id': 'no-such-session' });
    expect(unknown.status).toBe(404);
    const client = await gatewayClient(mcpUrl, tokens.AGENT);
    const transport = client.transport as { sessionId?: string };
    const sessionId = transport.sessionId!;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await post(mcpUrl, ping, { ...auth, 'mcp-session-id': sessionId })).status).toBe(200);
    const ended = await fetch(mcpUrl, {
      method: 'DELETE',
      headers: { ...auth, 'mcp-session-id': sessionId },
    });
    expect(ended.status).toBe(200);
    expect((await post(mcpUrl, ping, { ...auth, 'mcp-session-id': sessionId })).status).toBe(404);
  });

  test('a profile the token does not have is refused', async ({ tokens, services, mcpUrl }) => {
    const { secret } = await services.tokens.create({
      name: 'p2-only',
      role: 'AGENT',
      userId: 'u1',
      profiles: ['p2'],
    });
    const response = await post(mcpUrl, ping, { authorization: `Bearer ${secret}`, 'x-profile-id': 'p1' });
    expect(response.status).toBe(403);
    expect(tokens.AGENT).toBeTruthy();
  });
});
