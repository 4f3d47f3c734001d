import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Invocation, ToolExecutor, ToolOutput } from '../../calls/tool-contract.js';
import type { Unavailability } from '../../core/policy.js';
import { RecoverableToolError } from '../../core/tool-errors.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { type McpConnection, NotConnectedError } from './connection.js';
import type { McpConnectionManager } from './manager.js';
import { outputOf } from './result-mapping.js';

/**
 * The dispatcher owns the call's timeout (and restarts it when the server reports progress); the
 * SDK's own request timeout, which would otherwise cut every call at 60 s, is set just past it so
 * that it never fires first, and restarts on progress too.
 */
const SDK_TIMEOUT_GRACE_MS = 1_000;

/** `mcp.<server>.<tool>`: server names have no dots, so the second segment is always the server. */
function serverOf(toolName: string): string | null {
  const match = /^mcp\.([^.]+)\.(.+)$/.exec(toolName);
  return match ? match[1]! : null;
}

/** Runs MCP tools over this process's connection to their server. */
export class McpExecutor implements ToolExecutor {
  constructor(private readonly manager: McpConnectionManager) {}

  canExecute(spec: ToolSpec): boolean {
    return spec.source === 'MCP' && serverOf(spec.name) !== null;
  }

  /**
   * An MCP tool runs only when its server is configured, enabled and connected to some process
   * (this one or another: the dispatcher of any process may claim the call).
   */
  async unavailable(specs: readonly ToolSpec[]): Promise<ReadonlyMap<string, Unavailability>> {
    const servers = await this.manager.presence(specs.map((spec) => serverOf(spec.name)!));
    const result = new Map<string, Unavailability>();
    for (const spec of specs) {
      const server = serverOf(spec.name)!;
      const state = servers.get(server);
      if (state === 'CONNECTED') continue;
      result.set(
        spec.name,
        state === 'UNKNOWN'
          ? {
              code: 'tool_unavailable',
              reason: `no executor for it: no MCP server named ${server} is configured (MCP tools come from a server an admin adds with addMcpServer, named mcp.<server>.<tool>)`,
            }
          : {
              code: 'mcp_not_connected',
              reason:
                state === 'DISABLED'
                  ? `its MCP server ${server} is disabled`
                  : `its MCP server ${server} is not connected to any server process`,
            },
      );
    }
    return result;
  }

  async execute(invocation: Invocation): Promise<ToolOutput> {
    const name = invocation.spec.name;
    const server = serverOf(name)!;
    const connection = this.manager.connection(server);
    if (!connection?.connected) throw notConnected(server, name, connection);
    const remote = connection.remoteName(name);
    if (!remote) {
      throw new RecoverableToolError(
        'mcp_tool_not_offered',
        `The MCP server ${server} does not offer ${name} any more. Continue without it.`,
      );
    }
    const relay = this.manager.relays.of(invocation.callId, name);
    let taken: Awaited<ReturnType<McpConnection['relaySession']>> = null;
    try {
      taken = relay ? await connection.relaySession(relay) : null;
    } catch (error) {
      throw new RecoverableToolError(
        'mcp_connection_lost',
        `Could not open a session to the MCP server ${server} for ${name}, so it did not run: ${(error as Error).message}. Try again later or continue without it.`,
      );
    }
    const remaining = invocation.deadline ? Math.max(1, invocation.deadline.getTime() - Date.now()) : null;
    let result: Awaited<ReturnType<McpConnection['callTool']>>;
    let reuse = false;
    try {
      result = await (taken?.session ?? connection).callTool(remote, invocation.arguments, {
        signal: invocation.signal,
        ...(remaining !== null ? { timeout: remaining + SDK_TIMEOUT_GRACE_MS } : {}),
        resetTimeoutOnProgress: true,
        onprogress: ({ progress, total, message }) => {
          invocation.progress?.();
          relay?.progress({
            progress,
            ...(total !== undefined ? { total } : {}),
            ...(message ? { message } : {}),
          });
        },
      });
      reuse = true;
    } catch (error) {
      throw failure(error, { invocation, server, connection, relayed: taken !== null });
    } finally {
      taken?.release(reuse);
    }
    if (invocation.spec.outputSchema && result.structuredContent === undefined && !result.isError) {
      throw new RecoverableToolError(
        'invalid_output',
        `The tool ${name} declares an output schema but returned no structured content.`,
      );
    }
    return outputOf(result, invocation.storeResource);
  }
}

function notConnected(server: string, name: string, connection: McpConnection | undefined) {
  const state = connection ? ` (${connection.describeState()})` : '';
  return new RecoverableToolError(
    'mcp_not_connected',
    `The MCP server ${server} is not connected${state}, so ${name} could not run. Try again later or continue without it.`,
  );
}

function failure(
  error: unknown,
  {
    invocation,
    server,
    connection,
    relayed,
  }: { invocation: Invocation; server: string; connection: McpConnection; relayed: boolean },
): unknown {
  const name = invocation.spec.name;
  // Cancelled or timed out by the dispatcher, which words those results itself.
  if (invocation.signal.aborted) return error;
  if (error instanceof NotConnectedError) return notConnected(server, name, connection);
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) {
      return new RecoverableToolError(
        'timeout',
        `The call to ${name} got no answer from the MCP server ${server} in time and was abandoned. Try a smaller request or continue without it.`,
      );
    }
    if (error.code === ErrorCode.ConnectionClosed) {
      return new RecoverableToolError(
        'mcp_connection_lost',
        `The connection to the MCP server ${server} was lost during the call to ${name}; it may have partly run. The server is being reconnected: try again later or continue without it.`,
      );
    }
    return new RecoverableToolError(
      'mcp_protocol_error',
      `The MCP server ${server} refused the call to ${name}: ${error.message}`,
      { error: { kind: 'RECOVERABLE', code: 'mcp_protocol_error', jsonRpcCode: error.code } },
    );
  }
  // The SDK parses results with its own zod; compare by name rather than by class.
  if (error instanceof Error && error.name === 'ZodError') {
    return new RecoverableToolError(
      'mcp_protocol_error',
      `The MCP server ${server} answered the call to ${name} with a malformed result.`,
    );
  }
  // A relay session that broke is ended with the call; the shared connection is not at fault.
  if (!relayed) connection.reportBroken(error);
  return new RecoverableToolError(
    'mcp_connection_lost',
    `The connection to the MCP server ${server} failed during the call to ${name} (${(error as Error).message ?? String(error)}); it may have partly run. Try again later or continue without it.`,
  );
}
