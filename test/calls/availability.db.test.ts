import { describe, expect } from 'vitest';
import { tools } from '../../src/calls/tables.js';
import { normalizeAnnotations, normalizeBudget } from '../../src/core/tool-spec.js';
import { dbTest as test } from '../support/fixtures.js';
import { admin, allow, approver, eventTypes } from '../support/lifecycle.js';
import { addServer, serverConnectedElsewhere } from '../support/mcp.js';
import { loopClient, providerJson } from '../support/model-loop.js';

const REQUEST = `mutation($input: RequestToolCallInput!) { requestToolCall(input: $input) {
  id name status requestedBy error { kind code message } } }`;
const RUN_TOOLS = `query($id: ID!) { run(id: $id) { status effectiveTools { tool { name } visible callable reason remainingCalls } } }`;

/** The OpenAI chat fixture with its one call naming `nativeName`. */
function chatResponse(nativeName: string, args = '{"text":"x"}') {
  const body = providerJson('deepseek-chat-completion-reasoning_content-tool_calls.json');
  body.choices[0].message.tool_calls[0].function = { name: nativeName, arguments: args };
  return body;
}

async function offeredNames(loop: ReturnType<typeof loopClient>, runId: string) {
  return (await loop.tools(runId, 'OPENAI_CHAT')).map(
    (t) => (t as { function: { name: string } }).function.name,
  );
}

async function viewOf(
  gql: (q: string, v?: Record<string, unknown>) => Promise<{ data?: unknown }>,
  runId: string,
  name: string,
) {
  const res = (await gql(RUN_TOOLS, { id: runId })) as {
    data: { run: { effectiveTools: Array<{ tool: { name: string } }> } };
  };
  return res.data.run.effectiveTools.find((t) => t.tool.name === name) as Record<string, unknown>;
}

/** A SKILL tool from before registration was checked: no executor runs it. */
async function legacySkillTool(services: import('../../src/app/services.js').Services) {
  await services.database.db.insert(tools).values({
    name: 'notes.read',
    title: 'Read notes',
    description: 'd',
    inputSchema: { type: 'object' },
    outputSchema: null,
    annotations: normalizeAnnotations({ readOnly: true, openWorld: false }),
    visibility: 'MODEL',
    permission: 'ALWAYS_ALLOW',
    budget: normalizeBudget(null),
    source: 'SKILL',
    enabled: true,
    owner: null,
  });
}

describe('tools that cannot run now are not offered', () => {
  test('a tool whose budget is used up leaves providerTools, says why, and its call is budget_exhausted', async ({
    services,
    gql,
    tokens,
  }) => {
    await allow(services, 'test.*');
    await allow(services, 'test.echo', { budget: { maxCalls: 1 } });
    const loop = loopClient(gql, tokens);
    const runId = await loop.createRun({ profileId: 'p1', userId: 'u1', deniedToolStrategy: 'FAIL_RUN' });
    expect(await offeredNames(loop, runId)).toContain('test_echo');
    await gql(REQUEST, { input: { runId, name: 'test.echo', arguments: { text: 'once' } } }, tokens.AGENT);

    expect(await offeredNames(loop, runId)).not.toContain('test_echo');
    const view = await viewOf(gql, runId, 'test.echo');
    expect(view).toMatchObject({ visible: false, callable: false, remainingCalls: 0 });
    expect(view.reason).toMatch(/^cannot run now: call budget used up \(0 calls left in this run\)/);

    const { toolCalls } = await loop.submit(runId, 'OPENAI_CHAT', chatResponse('test_echo'));
    expect(toolCalls[0]).toMatchObject({
      name: 'test.echo',
      status: 'FAILED',
      error: { code: 'budget_exhausted' },
    });
    expect(await eventTypes(services, { callId: toolCalls[0].id })).toEqual([
      'tool_call_requested',
      'tool_call_failed',
    ]);
    expect((await services.runs.get(runId))!.status).toBe('RUNNING');
  });

  test('a tool no executor runs leaves providerTools, says why, and its call is tool_unavailable', async ({
    services,
    gql,
    tokens,
  }) => {
    await legacySkillTool(services);
    await allow(services, '*');
    const loop = loopClient(gql, tokens);
    const runId = await loop.createRun({ profileId: 'p1', userId: 'u1', deniedToolStrategy: 'FAIL_RUN' });
    expect(await offeredNames(loop, runId)).not.toContain('notes_read');
    expect((await viewOf(gql, runId, 'notes.read')).reason).toMatch(
      /^cannot run now: no executor for it: no executor runs SKILL tools/,
    );
    const res = await gql(REQUEST, { input: { runId, name: 'notes.read' } }, tokens.AGENT);
    expect((res.data as { requestToolCall: unknown }).requestToolCall).toMatchObject({
      status: 'FAILED',
      error: { kind: 'RECOVERABLE', code: 'tool_unavailable' },
    });
    expect((await services.runs.get(runId))!.status).toBe('RUNNING');
  });

  test('an MCP tool is offered only while its server is connected to some process', async ({
    services,
    gql,
    tokens,
  }) => {
    await addServer(services, { name: 'off', transport: 'STREAMABLE_HTTP', url: 'http://127.0.0.1:9/mcp' });
    await serverConnectedElsewhere(services, 'on');
    for (const name of ['mcp.off.fetch', 'mcp.on.fetch'])
      await services.registry.register({
        name,
        title: 'F',
        description: 'd',
        inputSchema: { type: 'object' },
        source: 'MCP',
      });
    await allow(services, 'mcp.*', { skipApproval: true });
    const loop = loopClient(gql, tokens);
    const runId = await loop.createRun({ profileId: 'p1', userId: 'u1' });
    const offered = await offeredNames(loop, runId);
    expect(offered).toContain('mcp_on_fetch');
    expect(offered).not.toContain('mcp_off_fetch');
    expect((await viewOf(gql, runId, 'mcp.off.fetch')).reason).toMatch(
      /^cannot run now: its MCP server off is not connected to any server process/,
    );
    const res = await gql(REQUEST, { input: { runId, name: 'mcp.off.fetch' } }, tokens.AGENT);
    expect((res.data as { requestToolCall: unknown }).requestToolCall).toMatchObject({
      status: 'FAILED',
      error: { kind: 'RECOVERABLE', code: 'mcp_not_connected' },
    });
  });
});

describe('USER_ONLY tools: for people, never for agents', () => {
  const userOnly = test.extend<{ runId: string }>({
    runId: async ({ services, gql, tokens }, use) => {
      await allow(services, 'test.*');
      await services.registry.update('test.echo', { visibility: 'USER_ONLY' });
      await use(
        await loopClient(gql, tokens).createRun({
          profileId: 'p1',
          userId: 'u1',
          deniedToolStrategy: 'RETURN_DENIED_RESULT',
        }),
      );
    },
  });

  userOnly.for(['AGENT', 'HOST'] as const)(
    'requested by %s, it is a policy violation as a hidden tool',
    async (role, { services, gql, tokens, runId }) => {
      const res = await gql(
        REQUEST,
        { input: { runId, name: 'test.echo', arguments: { text: 'x' } } },
        tokens[role],
      );
      const call = (res.data as { requestToolCall: { id: string } }).requestToolCall;
      expect(call).toMatchObject({
        status: 'FAILED',
        error: { kind: 'POLICY_DENIED', code: 'tool_not_available' },
      });
      expect((call as unknown as { error: { message: string } }).error.message).toMatch(
        /USER_ONLY tool: never offered to the model/,
      );
      expect(await eventTypes(services, { callId: call.id })).toEqual([
        'tool_call_requested',
        'policy_violation',
        'tool_call_failed',
      ]);
    },
  );

  userOnly(
    'called by the model through submitModelResponse, it is a policy violation',
    async ({ services, gql, tokens, runId }) => {
      const loop = loopClient(gql, tokens);
      expect(await offeredNames(loop, runId)).not.toContain('test_echo');
      const { toolCalls } = await loop.submit(runId, 'OPENAI_CHAT', chatResponse('test_echo'));
      expect(toolCalls[0]).toMatchObject({
        name: 'test.echo',
        status: 'FAILED',
        error: { code: 'tool_not_available' },
      });
      expect(await eventTypes(services, { callId: toolCalls[0].id })).toContain('policy_violation');
    },
  );

  userOnly(
    "an approver of the run's user calls it, journaled with the approver as actor",
    async ({ services, gql, tokens, runId }) => {
      const res = await gql(
        REQUEST,
        { input: { runId, name: 'test.echo', arguments: { text: 'by hand' } } },
        tokens.APPROVER,
      );
      const call = (res.data as { requestToolCall: { id: string } }).requestToolCall;
      expect(call).toMatchObject({
        name: 'test.echo',
        status: 'COMPLETED',
        requestedBy: 'approver:test-approver',
      });
      const events = await services.journal.read({ callId: call.id, limit: 10 });
      expect(events.map((e) => [e.type, e.actor])).toEqual([
        ['tool_call_requested', 'approver:test-approver'],
        ['tool_call_started', expect.any(String)],
        ['tool_call_completed', expect.any(String)],
      ]);
    },
  );

  userOnly('an admin calls it as a person too', async ({ gql, tokens, runId }) => {
    const res = await gql(
      REQUEST,
      { input: { runId, name: 'test.echo', arguments: { text: 'x' } } },
      tokens.ADMIN,
    );
    expect((res.data as { requestToolCall: unknown }).requestToolCall).toMatchObject({ status: 'COMPLETED' });
  });

  userOnly(
    "an approver not bound to the run's user gets NOT_FOUND, and nothing is recorded",
    async ({ services, gql, tokens }) => {
      const bob = await services.runs.create({ profileId: 'p1', userId: 'bob' }, admin);
      const res = await gql(
        REQUEST,
        { input: { runId: bob.id, name: 'test.echo', arguments: { text: 'x' } } },
        tokens.APPROVER,
      );
      expect(res.errors![0]!.extensions!.code).toBe('NOT_FOUND');
      expect(await eventTypes(services, { runId: bob.id })).not.toContain('tool_call_requested');
    },
  );

  userOnly(
    'the approver principal calling the service directly is a person as well',
    async ({ services, runId }) => {
      const call = await services.calls.request(
        { runId, name: 'test.echo', arguments: { text: 'x' } },
        approver,
      );
      expect(call.status).toBe('COMPLETED');
      expect(call.requestedBy).toBe('approver:alice');
    },
  );
});
