import { resolve } from 'node:path';
import { inject } from 'vitest';
import type { Services } from '../../src/app/services.js';
import type { McpServerStatus } from '../../src/bridge/mcp/connection-status.js';
import { mcpConnections } from '../../src/bridge/mcp/tables.js';
import type { ToolCallRow } from '../../src/calls/tables.js';
import { admin, agent, approver, newRun, waitFor } from './lifecycle.js';

export const PROJECT_ROOT = resolve(import.meta.dirname, '../..');

/** The SDK test server (test/support/mcp-test-server.ts) as a stdio child, as an admin would configure it. */
export function stdioTestServer(name = 't', extra: Record<string, unknown> = {}) {
  return {
    name,
    transport: 'STDIO' as const,
    command: process.execPath,
    args: [inject('mcpStdioServer')],
    env: [{ name: 'MCP_TEST_PAGE_SIZE', value: '3' }],
    cwd: PROJECT_ROOT,
    ...extra,
  };
}

/** The published reference server, over stdio (its default transport). */
export function everythingServer(name = 'ev') {
  return {
    name,
    transport: 'STDIO' as const,
    command: process.execPath,
    args: [
      resolve(PROJECT_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'),
      'stdio',
    ],
  };
}

export async function addServer(services: Services, input: Record<string, unknown>) {
  return services.mcpServers.add(input, 'admin:root');
}

export async function statusOf(services: Services, name: string): Promise<McpServerStatus> {
  return services.mcpConnections.status((await services.mcpServers.require(name))!);
}

export function waitForState(
  services: Services,
  name: string,
  state: McpServerStatus['state'],
  timeoutMs = 20_000,
) {
  return waitFor(async () => {
    const status = await statusOf(services, name);
    return status.state === state && status;
  }, timeoutMs);
}

/** Allows every tool of the pattern for profile p1, waiving the default approvals where a rule may. */
export async function allowMcp(services: Services, pattern: string, budget?: Record<string, number>) {
  await services.policy.set(
    {
      layer: 'PROFILE',
      scopeId: 'p1',
      toolPattern: pattern,
      effect: 'ALLOW',
      skipApproval: true,
      ...(budget ? { budget } : {}),
    },
    admin,
  );
}

const terminal = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'DENIED']);

export async function waitForStatus(services: Services, callId: string, statuses: Set<string> = terminal) {
  return waitFor(async () => {
    const call = await services.calls.get(callId);
    return call && statuses.has(call.status) && call;
  }, 30_000);
}

/** Requests a call, approves it (MCP tools always need approval) and waits for it to end. */
export async function callApproved(
  services: Services,
  name: string,
  args: Record<string, unknown> = {},
  runId?: string,
): Promise<ToolCallRow> {
  const run = runId ?? (await newRun(services)).id;
  const held = await services.calls.request({ runId: run, name, arguments: args }, agent);
  if (held.status !== 'AWAITING_APPROVAL') throw new Error(`expected AWAITING_APPROVAL, got ${held.status}`);
  await services.calls.approve(held.id, { argumentsHash: held.argumentsHash }, approver);
  return waitForStatus(services, held.id);
}

/**
 * A configured MCP server that some other process is connected to: its presence row, written as
 * that process's manager would, with no server behind it here (this process's own attempts to
 * connect to the closed port fail and retry quietly). Tools of a server connected nowhere are not offered.
 */
export async function serverConnectedElsewhere(services: Services, name: string) {
  await addServer(services, { name, transport: 'STREAMABLE_HTTP', url: 'http://127.0.0.1:9/mcp' });
  await services.database.db
    .insert(mcpConnections)
    .values({ serverName: name, processId: 'elsewhere', expiresAt: new Date(Date.now() + 3_600_000) });
}
