import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InspectorRun, inspect } from '../../support/inspector.js';
import { graphqlOver, type ServerProcess, startServer } from '../../support/server-process.js';

/**
 * The MCP gateway (/mcp) as the MCP inspector's CLI sees it: a server process with the test tools,
 * an AGENT token for user u1 on profile p1, and policy that allows test.*, asks a person for
 * test.dangerous and test.big (and for test.typed, whose approval expires after 300 ms) and denies
 * test.fail_system. Calls are held 4 s. Each test is one behaviour through `inspect`.
 */
const ADMIN = 'inspector-admin-token-0123456789';
const APPROVAL = 'agent-tool-system/approval';
let server: ServerProcess;
let dataDir: string;
let agentToken: string;
let mcpUrl: string;

const gql = async (query: string, variables?: Record<string, unknown>) => {
  const answer = await graphqlOver(server.url, ADMIN, query, variables);
  expect(answer.errors).toBeUndefined();
  return answer.data;
};
const asAgent = (request: Omit<Parameters<typeof inspect>[1], 'token'>) =>
  inspect(mcpUrl, { token: agentToken, ...request });
/** The id of the call of `name` with these arguments once it waits for a person (while the inspector is held). */
const awaiting = async (name: string, args: Record<string, unknown>) => {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { pendingApprovals } = await gql(
      '{ pendingApprovals(first: 50) { edges { node { id name arguments } } } }',
    );
    const found = (
      pendingApprovals.edges as { node: { id: string; name: string; arguments: unknown } }[]
    ).find((e) => e.node.name === name && JSON.stringify(e.node.arguments) === JSON.stringify(args));
    if (found) return found.node.id;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${name} never waited for a person`);
};
const approval = (run: InspectorRun) =>
  (run.json as { _meta?: Record<string, Record<string, unknown>> })._meta?.[APPROVAL];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ats-inspector-'));
  server = await startServer(
    { DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, MCP_APPROVAL_HOLD_MS: '4000', TOKEN_CHECK_INTERVAL_MS: '200' },
    ['node_modules/.bin/tsx', 'test/support/test-server.ts'],
  );
  mcpUrl = `${server.origin}/mcp`;
  agentToken = (
    await gql(
      'mutation { createApiToken(input: { role: AGENT, name: "inspector", userId: "u1", profiles: ["p1"] }) { token } }',
    )
  ).createApiToken.token;
  for (const rule of [
    '{ layer: PROFILE, scopeId: "p1", toolPattern: "test.*", effect: ALLOW }',
    '{ layer: PROFILE, scopeId: "p1", toolPattern: "test.fail_system", effect: DENY, reason: "hidden from agents" }',
    '{ layer: USER, scopeId: "u1", toolPattern: "test.dangerous", effect: ASK }',
    '{ layer: USER, scopeId: "u1", toolPattern: "test.big", effect: ASK }',
    '{ layer: USER, scopeId: "u1", toolPattern: "test.typed", effect: ASK, budget: { approvalTimeoutMs: 300 } }',
  ])
    await gql(`mutation { setPolicyRule(input: ${rule}) { id } }`);
});

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the MCP gateway through the MCP inspector CLI', () => {
  it('lists the policy-effective tools under host-safe names, without the denied one', async () => {
    const run = await asAgent({ method: 'tools/list' });
    expect(run.code).toBe(0);
    const names = (run.json as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['test__echo', 'test__noop', 'test__dangerous']));
    expect(names).not.toContain('test__fail_system');
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it('runs an allowed call at once and returns its result', async () => {
    const run = await asAgent({ method: 'tools/call', toolName: 'test__echo', toolArgs: { text: 'hello' } });
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ content: [{ type: 'text', text: 'hello' }] });
    expect((run.json as { isError?: boolean }).isError).not.toBe(true);
  });

  it('refuses a call of a tool the policy hides, as an unknown tool', async () => {
    const run = await asAgent({ method: 'tools/call', toolName: 'test__fail_system' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Unknown tool: test__fail_system');
  });

  it('holds a call that needs a person, then answers pending with the call id and console link', async () => {
    const run = await asAgent({ method: 'tools/call', toolName: 'test__dangerous' });
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ isError: true });
    const pending = approval(run)!;
    expect(pending).toMatchObject({ status: 'pending_approval', callId: expect.any(String) });
    expect(pending.consoleUrl).toEqual(expect.stringContaining(String(pending.callId)));
    expect(pending.retryAfterMs).toEqual(expect.any(Number));
    const { toolCall } = await gql('query($id: ID!) { toolCall(id: $id) { status name } }', {
      id: pending.callId,
    });
    expect(toolCall).toEqual({ status: 'AWAITING_APPROVAL', name: 'test.dangerous' });
  });

  it('an identical retry attaches to the same pending call, and after the approval gets its outcome', async () => {
    const first = approval(
      await asAgent({ method: 'tools/call', toolName: 'test__big', toolArgs: { chars: 3 } }),
    )!;
    const again = approval(
      await asAgent({ method: 'tools/call', toolName: 'test__big', toolArgs: { chars: 3 } }),
    )!;
    expect(again.callId).toBe(first.callId);
    await gql('mutation($id: ID!) { approveToolCall(id: $id) { id } }', { id: first.callId });
    const outcome = await asAgent({ method: 'tools/call', toolName: 'test__big', toolArgs: { chars: 3 } });
    expect(outcome.json).toMatchObject({ content: [{ type: 'text', text: 'xxx' }] });
    expect(approval(outcome)).toBeUndefined();
  });

  it('holds a call that needs a person and, approved within the hold, answers the real result', async () => {
    const held = asAgent({ method: 'tools/call', toolName: 'test__big', toolArgs: { chars: 5 } });
    const id = await awaiting('test.big', { chars: 5 });
    await gql('mutation($id: ID!) { approveToolCall(id: $id) { id } }', { id });
    const run = await held;
    expect(run.code).toBe(0);
    expect(run.json).toEqual({ content: [{ type: 'text', text: 'xxxxx' }] });
  });

  it('denied with feedback: an error result carrying the feedback', async () => {
    const held = asAgent({ method: 'tools/call', toolName: 'test__big', toolArgs: { chars: 7 } });
    const id = await awaiting('test.big', { chars: 7 });
    await gql('mutation($id: ID!) { denyToolCall(id: $id, feedback: "Use fewer characters.") { id } }', {
      id,
    });
    const run = await held;
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ isError: true });
    const text = JSON.stringify((run.json as { content: unknown }).content);
    expect(text).toContain('A person denied this call.');
    expect(text).toContain('Use fewer characters.');
  });

  it('approved with edits: the edited arguments ran and the result says so', async () => {
    const held = asAgent({ method: 'tools/call', toolName: 'test__big', toolArgs: { chars: 2 } });
    const id = await awaiting('test.big', { chars: 2 });
    await gql('mutation($id: ID!) { approveToolCall(id: $id, editedArguments: { chars: 4 }) { id } }', {
      id,
    });
    const run = await held;
    expect(run.code).toBe(0);
    const content = (run.json as { content: { type: string; text: string }[] }).content;
    expect(content[0]!.text).toMatch(
      /edited this call's arguments before approving it; it ran with \{"chars":4\}/,
    );
    expect(content.at(-1)).toEqual({ type: 'text', text: 'xxxx' });
  });

  it('expired: an error result that says nobody decided, not a denial', async () => {
    const run = await asAgent({ method: 'tools/call', toolName: 'test__typed' });
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ isError: true });
    const text = JSON.stringify((run.json as { content: unknown }).content);
    expect(text).toContain('Nobody decided');
    expect(text).not.toContain('denied');
  });

  it('a token revoked while its call is held: the request ends with an error saying so', async () => {
    const { createApiToken } = await gql(
      'mutation { createApiToken(input: { role: AGENT, name: "revoked", userId: "u1", profiles: ["p1"] }) { token apiToken { id } } }',
    );
    const held = inspect(mcpUrl, {
      token: createApiToken.token,
      method: 'tools/call',
      toolName: 'test__big',
      toolArgs: { chars: 11 },
    });
    await awaiting('test.big', { chars: 11 });
    await gql('mutation($id: ID!) { revokeApiToken(id: $id) }', { id: createApiToken.apiToken.id });
    const run = await held;
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('revoked');
  });
});
