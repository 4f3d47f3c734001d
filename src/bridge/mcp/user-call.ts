import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from './rules/mcp-server.js';
import { userCallHeaders } from './rules/user-credential.js';

const CLIENT_INFO = { name: 'agent-tool-system', version: '0.1.0' };

/** The upstream answered 401 or 403 to the user's credential. */
export class CredentialRefusedError extends Error {
  override name = 'CredentialRefusedError';
}

/**
 * One call with one user's credential, over an upstream session of its own (initialize, the call,
 * close): the process's shared connection, which lists the tools, carries the admin's headers
 * only, and one user's credential never rides on a session another user's calls use.
 */
export async function callAsUser(
  config: McpServerConfig,
  header: readonly [string, string],
  call: { remoteName: string; args: Record<string, unknown>; options: RequestOptions },
): Promise<CallToolResult> {
  const headers = userCallHeaders(config.headers, header);
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(config.url!), { requestInit: { headers } }),
      {
        ...(call.options.signal ? { signal: call.options.signal } : {}),
        ...(call.options.timeout ? { timeout: call.options.timeout } : {}),
      },
    );
    return (await client.request(
      { method: 'tools/call', params: { name: call.remoteName, arguments: call.args } },
      CallToolResultSchema,
      call.options,
    )) as CallToolResult;
  } catch (error) {
    if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403))
      throw new CredentialRefusedError(`HTTP ${error.code}`);
    throw error;
  } finally {
    await client.close().catch(() => {});
  }
}
