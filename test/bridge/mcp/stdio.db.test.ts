import { eq } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { createLogger } from '../../../src/app/logger.js';
import { createServices } from '../../../src/app/services.js';
import { mcpConnections } from '../../../src/bridge/mcp/tables.js';
import { readResource } from '../../../src/calls/resource-store.js';
import { dbTest as test } from '../../support/fixtures.js';
import { admin, agent, approver, eventTypes, newRun, waitFor } from '../../support/lifecycle.js';
import {
  addServer,
  allowMcp,
  callApproved,
  PROJECT_ROOT,
  statusOf,
  stdioTestServer,
  waitForState,
  waitForStatus,
} from '../../support/mcp.js';
import { TINY_PNG_BASE64 } from '../../support/mcp-test-server.js';

const listed = [
  'add_tool',
  'bad_structured',
  'cancellations',
  'crash',
  'echo',
  'environment',
  'fail',
  'image',
  'in_flight',
  'links',
  'progress',
  'remove_tool',
  'slow',
  'stats',
].map((n) => `mcp.t.${n}`);

async function connected(services: Parameters<typeof addServer>[0], extra: Record<string, unknown> = {}) {
  await addServer(services, stdioTestServer('t', extra));
  return waitForState(services, 't', 'CONNECTED');
}

describe('MCP over stdio: the SDK test server as a child process', () => {
  test('lists every page of tools and registers each as mcp.<server>.<tool>, owned by the server', async ({
    services,
  }) => {
    const status = await connected(services);
    expect(status).toMatchObject({ toolCount: listed.length, lastError: null, serverVersion: '1.2.3' });
    const mcp = (await services.registry.all()).filter((t) => t.source === 'MCP');
    expect(mcp.map((t) => t.name)).toEqual(listed);
    const echo = await services.registry.require('mcp.t.echo');
    expect(echo).toMatchObject({
      title: 'Echo',
      description: 'Returns the text it is given.',
      permission: 'APPROVAL_REQUIRED',
      visibility: 'MODEL',
      enabled: true,
      // readOnly and openWorld as declared; idempotent is never taken from a server.
      annotations: { readOnly: true, destructive: false, idempotent: false, openWorld: false },
    });
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
    expect((await services.registry.require('mcp.t.stats')).outputSchema).toMatchObject({
      type: 'object',
      properties: { count: { type: 'number' }, sum: { type: 'number' } },
    });
    const offered = await services.mcpServers.tools('t');
    expect(offered.find((o) => o.remoteName === 'bad/name')).toMatchObject({
      toolName: null,
      present: true,
      rejection: 'its registry name "mcp.t.bad/name" is not 1-128 characters of A-Z a-z 0-9 _ - .',
    });
    expect(offered.find((o) => o.remoteName === 'echo')?.hints).toEqual({
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(await eventTypes(services, {})).toEqual(['mcp_server_changed', 'mcp_tools_changed']);
  });

  test('while connected, this process holds a presence row for the server; the tools are offered only then', async ({
    services,
  }) => {
    await connected(services);
    await allowMcp(services, 'mcp.t.*');
    const rows = () =>
      services.database.db.select().from(mcpConnections).where(eq(mcpConnections.serverName, 't'));
    const [row] = await rows();
    expect(row!.expiresAt.getTime()).toBeGreaterThan(Date.now());
    const echo = async () =>
      (await services.policy.effectiveTools({ profileId: 'p1' })).find((t) => t.tool.name === 'mcp.t.echo')!;
    expect(await echo()).toMatchObject({ visible: true });

    await services.mcpServers.setEnabled('t', false, 'admin:root');
    await waitFor(async () => (await rows()).length === 0);
    expect((await echo()).visible).toBe(false);
  });

  test('each connected process holds its own presence row, and a stopped one leaves none behind', async ({
    services,
    testDb,
  }) => {
    const second = createServices(testDb.database, createLogger('silent'), { busPollMs: 200 });
    await second.start();
    const rows = () => services.database.db.select().from(mcpConnections);
    try {
      await connected(services);
      await waitForState(second, 't', 'CONNECTED');
      expect(await rows()).toHaveLength(2);
    } finally {
      await second.stop();
    }
    expect(await rows()).toHaveLength(1);
  });

  test('a call goes request → approval → dispatch → result, even when a rule waives default approvals', async ({
    services,
  }) => {
    await connected(services);
    await allowMcp(services, 'mcp.t.*');
    const run = await newRun(services);
    const held = await services.calls.request(
      { runId: run.id, name: 'mcp.t.echo', arguments: { text: 'hello' } },
      agent,
    );
    expect(held.status).toBe('AWAITING_APPROVAL');
    expect(held.policyReason).toMatch(/approval required by the tool permission APPROVAL_REQUIRED/);
    await services.calls.approve(held.id, { argumentsHash: held.argumentsHash }, approver);
    const done = await waitForStatus(services, held.id);
    expect(done.status).toBe('COMPLETED');
    expect(done.result).toMatchObject({
      content: [{ type: 'text', text: 'hello' }],
      isError: false,
      structured: null,
    });
    expect(await eventTypes(services, { callId: held.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_approved',
      'tool_call_started',
      'tool_call_completed',
    ]);
  });

  test('structured content is kept, and structured content that breaks the output schema is a recoverable error', async ({
    services,
  }) => {
    await connected(services);
    await allowMcp(services, 'mcp.t.*');
    const stats = await callApproved(services, 'mcp.t.stats', { values: [1, 2, 3.5] });
    expect(stats.status).toBe('COMPLETED');
    expect(stats.result!.structured).toEqual({ count: 3, sum: 6.5 });
    const bad = await callApproved(services, 'mcp.t.bad_structured');
    expect(bad.status).toBe('FAILED');
    expect(bad.error).toMatchObject({ kind: 'RECOVERABLE', code: 'invalid_output' });
    expect(bad.error!.message).toMatch(/\/count must be number/);
  });

  test('an isError result completes the call as an error result the model reads', async ({ services }) => {
    await connected(services);
    await allowMcp(services, 'mcp.t.*');
    const call = await callApproved(services, 'mcp.t.fail', { message: 'no such city' });
    expect(call.status).toBe('COMPLETED');
    expect(call.result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'no such city' }] });
    expect(await eventTypes(services, { callId: call.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_approved',
      'tool_call_started',
      'tool_call_completed',
    ]);
  });

  test('images are stored as resources and returned as refs; links and embedded resources as resource refs', async ({
    services,
  }) => {
    await connected(services);
    await allowMcp(services, 'mcp.t.*');
    const image = await callApproved(services, 'mcp.t.image');
    const [part] = image.result!.content;
    expect(part).toMatchObject({ type: 'image_ref', mimeType: 'image/png' });
    const stored = await readResource(services.database.db, (part as { uri: string }).uri);
    expect(stored!.content.equals(Buffer.from(TINY_PNG_BASE64, 'base64'))).toBe(true);
    expect(image.result!.resourceRefs).toEqual([(part as { uri: string }).uri]);

    const links = await callApproved(services, 'mcp.t.links');
    const [link, embedded] = links.result!.content;
    expect(link).toEqual({
      type: 'resource_ref',
      uri: 'test://docs/one',
      mimeType: 'text/plain',
      description: 'The first document',
    });
    expect(embedded).toMatchObject({
      type: 'resource_ref',
      mimeType: 'text/markdown',
      description: 'embedded resource test://docs/two',
    });
    const body = await readResource(services.database.db, (embedded as { uri: string }).uri);
    expect(body!.content.toString()).toBe('# Two');
  });

  test('a slow tool that passes its timeout fails recoverably as timeout, and the server is told to cancel', async ({
    services,
  }) => {
    await connected(services);
    await allowMcp(services, 'mcp.t.*', { timeoutMs: 500 });
    const call = await callApproved(services, 'mcp.t.slow', { ms: 20_000 });
    expect(call.status).toBe('FAILED');
    expect(call.error).toMatchObject({ kind: 'RECOVERABLE', code: 'timeout' });
    expect((await services.runs.get(call.runId))!.status).toBe('RUNNING');
    const seen = await waitFor(async () => {
      const c = await callApproved(services, 'mcp.t.cancellations', {}, call.runId);
      return (c.result!.structured as { cancelled: string[] }).cancelled.length > 0 && c;
    }, 20_000);
    expect(seen.result!.structured).toEqual({ cancelled: ['slow'] });
  });

  test('progress reports restart the timeout, so a long call that keeps reporting completes', async ({
    services,
  }) => {
    await connected(services);
    await allowMcp(services, 'mcp.t.*', { timeoutMs: 1_500 });
    // Four steps of 600 ms: 2.4 s in all, well past the 1.5 s timeout, but never 1.5 s without progress.
    const call = await callApproved(services, 'mcp.t.progress', { steps: 4, intervalMs: 600 });
    expect(call.status).toBe('COMPLETED');
    expect(call.result!.content).toEqual([{ type: 'text', text: 'done in 4 steps' }]);
  });

  test('cancelling the run cancels the call and the MCP request', async ({ services }) => {
    await connected(services);
    await allowMcp(services, 'mcp.t.*');
    const run = await newRun(services);
    const held = await services.calls.request(
      { runId: run.id, name: 'mcp.t.slow', arguments: { ms: 20_000 } },
      agent,
    );
    await services.calls.approve(held.id, { argumentsHash: held.argumentsHash }, approver);
    await waitForStatus(services, held.id, new Set(['STARTED']));
    const other = await newRun(services);
    await waitFor(async () => {
      const c = await callApproved(services, 'mcp.t.in_flight', {}, other.id);
      return (c.result!.structured as { slow: number }).slow === 1;
    }, 20_000);
    await services.runs.cancel(run.id, admin);
    const call = await waitForStatus(services, held.id);
    expect(call.status).toBe('CANCELLED');
    const seen = await waitFor(async () => {
      const c = await callApproved(services, 'mcp.t.cancellations', {}, other.id);
      return (c.result!.structured as { cancelled: string[] }).cancelled.length > 0 && c;
    }, 20_000);
    expect(seen.result!.structured).toEqual({ cancelled: ['slow'] });
    expect(await eventTypes(services, { callId: held.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_approved',
      'tool_call_started',
      'tool_call_cancelled',
    ]);
  });

  test('tools/list_changed refreshes the registry: a new tool appears, a vanished one is disabled, a returning one re-enabled', async ({
    services,
  }) => {
    await connected(services);
    await allowMcp(services, 'mcp.t.*');
    await callApproved(services, 'mcp.t.add_tool', { name: 'extra' });
    const added = await waitFor(() => services.registry.get('mcp.t.extra'));
    expect(added).toMatchObject({ source: 'MCP', enabled: true, permission: 'APPROVAL_REQUIRED' });
    expect((await callApproved(services, 'mcp.t.extra')).result!.content).toEqual([
      { type: 'text', text: 'extra says hi' },
    ]);

    await callApproved(services, 'mcp.t.remove_tool', { name: 'extra' });
    const gone = await waitFor(async () => {
      const t = await services.registry.get('mcp.t.extra');
      return t && !t.enabled && t;
    });
    expect(gone.source).toBe('MCP');
    expect((await services.mcpServers.tools('t')).find((o) => o.remoteName === 'extra')?.present).toBe(false);
    const run = await newRun(services);
    const hidden = await services.calls.request({ runId: run.id, name: 'mcp.t.extra' }, agent);
    expect(hidden.error).toMatchObject({ kind: 'POLICY_DENIED' });

    await callApproved(services, 'mcp.t.add_tool', { name: 'extra' });
    await waitFor(async () => (await services.registry.get('mcp.t.extra'))?.enabled);
    const changes = (await services.journal.read({ limit: 100 }))
      .filter((e) => e.type === 'mcp_tools_changed')
      .map((e) => {
        const { added: a, disabled, reenabled } = e.payload as Record<string, string[]>;
        return { added: a, disabled, reenabled };
      });
    expect(changes.slice(1)).toEqual([
      { added: ['mcp.t.extra'], disabled: [], reenabled: [] },
      { added: [], disabled: ['mcp.t.extra'], reenabled: [] },
      { added: [], disabled: [], reenabled: ['mcp.t.extra'] },
    ]);
  });

  test('an admin who disables an offered tool keeps it disabled across refreshes', async ({ services }) => {
    await connected(services);
    await services.registry.setEnabled('mcp.t.echo', false);
    await services.mcpConnections.refresh('t');
    expect((await services.registry.require('mcp.t.echo')).enabled).toBe(false);
  });

  test('a tool an admin disabled stays disabled when its server is disabled and enabled again', async ({
    services,
  }) => {
    await connected(services);
    await services.registry.setEnabled('mcp.t.echo', false);
    await services.mcpServers.setEnabled('t', false, 'admin:root');
    await services.mcpServers.setEnabled('t', true, 'admin:root');
    await waitForState(services, 't', 'CONNECTED');
    const enabled = (await services.registry.all()).filter((t) => t.source === 'MCP' && t.enabled);
    expect(enabled.map((t) => t.name)).toEqual(listed.filter((n) => n !== 'mcp.t.echo'));
    expect((await services.registry.require('mcp.t.echo')).enabled).toBe(false);
  });

  test('a dead server fails the call recoverably, shows the error in its status, and is reconnected', async ({
    services,
  }) => {
    const first = await connected(services);
    await allowMcp(services, 'mcp.t.*');
    const crash = await callApproved(services, 'mcp.t.crash');
    expect(crash.status).toBe('FAILED');
    expect(crash.error).toMatchObject({ kind: 'RECOVERABLE', code: 'mcp_connection_lost' });
    expect((await services.runs.get(crash.runId))!.status).toBe('RUNNING');
    const back = await waitFor(async () => {
      const s = await statusOf(services, 't');
      return s.state === 'CONNECTED' && s.connectedAt!.getTime() > first.connectedAt!.getTime() && s;
    });
    expect(back.lastError).toBe('the server process exited (stderr: crashing on purpose)');
    expect(back.lastErrorAt).not.toBeNull();
    const echo = await callApproved(services, 'mcp.t.echo', { text: 'again' }, crash.runId);
    expect(echo.result!.content).toEqual([{ type: 'text', text: 'again' }]);
  });

  test('a server that cannot start is FAILED with the reason, and its tools are refused as not connected', async ({
    services,
  }) => {
    await connected(services);
    await allowMcp(services, 'mcp.t.*');
    await services.mcpServers.update(
      't',
      { args: ['--import', 'tsx', 'test/support/no-such-server.ts'] },
      'admin:root',
    );
    const failed = await waitForState(services, 't', 'FAILED');
    expect(failed.lastError).toMatch(/^could not connect: .*no-such-server/);
    expect(failed.nextRetryAt).not.toBeNull();
    // Connected nowhere, so not offered, and a call is refused before anybody is asked to approve it.
    const run = await newRun(services);
    const call = await services.calls.request(
      { runId: run.id, name: 'mcp.t.echo', arguments: { text: 'x' } },
      agent,
    );
    expect(call.status).toBe('FAILED');
    expect(call.error).toMatchObject({ kind: 'RECOVERABLE', code: 'mcp_not_connected' });
    expect(call.error!.message).toMatch(
      /^The tool mcp\.t\.echo cannot run now: its MCP server t is not connected to any server process/,
    );
  });

  test('the configured env and cwd reach the child; nothing else of this process does', async ({
    services,
  }) => {
    await connected(services, {
      env: [
        { name: 'MCP_TEST_PAGE_SIZE', value: '3' },
        { name: 'MCP_TEST_SECRET', value: 's3cret' },
      ],
    });
    await allowMcp(services, 'mcp.t.*');
    process.env.MCP_TEST_SECRET = 'leaked';
    try {
      const call = await callApproved(services, 'mcp.t.environment');
      expect(JSON.parse((call.result!.content[0] as { text: string }).text)).toEqual({
        secret: 's3cret',
        cwd: PROJECT_ROOT,
      });
    } finally {
      delete process.env.MCP_TEST_SECRET;
    }
  });

  test('disabling a server disables its tools; enabling brings them back; removing keeps them disabled', async ({
    services,
  }) => {
    await connected(services);
    await services.mcpServers.setEnabled('t', false, 'admin:root');
    expect((await statusOf(services, 't')).state).toBe('DISABLED');
    expect((await services.registry.all()).filter((t) => t.source === 'MCP' && t.enabled)).toEqual([]);
    await services.mcpServers.setEnabled('t', true, 'admin:root');
    await waitForState(services, 't', 'CONNECTED');
    expect((await services.registry.all()).filter((t) => t.source === 'MCP' && t.enabled)).toHaveLength(
      listed.length,
    );
    await services.mcpServers.remove('t', 'admin:root');
    expect(services.mcpConnections.connection('t')).toBeUndefined();
    const kept = (await services.registry.all()).filter((t) => t.source === 'MCP');
    expect(kept.map((t) => [t.name, t.enabled])).toEqual(listed.map((n) => [n, false]));
  });

  test('several processes on one database each connect, and write the registry once', async ({
    services,
    testDb,
  }) => {
    const second = createServices(testDb.database, createLogger('silent'), { busPollMs: 200 });
    await second.start();
    try {
      await connected(services);
      await waitForState(second, 't', 'CONNECTED');
      await services.mcpConnections.refresh('t');
      await second.mcpConnections.refresh('t');
      expect(await eventTypes(services, {})).toEqual(['mcp_server_changed', 'mcp_tools_changed']);
      expect((await services.registry.all()).filter((t) => t.source === 'MCP')).toHaveLength(listed.length);
      await second.mcpServers.setEnabled('t', false, 'admin:root');
      await waitForState(services, 't', 'DISABLED');
    } finally {
      await second.stop();
    }
  });
});
