import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Invocation, ToolExecutor, ToolOutput } from '../../calls/tool-contract.js';
import type { Unavailability } from '../../core/policy.js';
import { RecoverableToolError } from '../../core/tool-errors.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { type McpConnection, NotConnectedError } from './connection.js';
import type { UpstreamCredentials } from './credentials/store.js';
import type { McpConnectionManager } from './manager.js';
import { outputOf } from './result-mapping.js';
import { credentialHeader, type UserCredentialConfig } from './rules/user-credential.js';
import { CredentialRefusedError, callAsUser } from './user-call.js';

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
  constructor(
    private readonly manager: McpConnectionManager,
    private readonly credentials: UpstreamCredentials,
  ) {}

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
    const perUser = connection.config.userCredential;
    // A call with the user's own credential runs over a session of its own, which is not relayed.
    const relay = perUser ? null : this.manager.relays.of(invocation.callId, name);
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
    const options = {
      signal: relay?.cancelled ? AbortSignal.any([invocation.signal, relay.cancelled]) : invocation.signal,
      ...(remaining !== null ? { timeout: remaining + SDK_TIMEOUT_GRACE_MS } : {}),
      resetTimeoutOnProgress: true,
      onprogress: ({ progress, total, message }: { progress: number; total?: number; message?: string }) => {
        invocation.progress?.();
        relay?.progress({
          progress,
          ...(total !== undefined ? { total } : {}),
          ...(message ? { message } : {}),
        });
      },
    };
    const header = perUser ? await this.userHeader(invocation, server, perUser) : null;
    let result: Awaited<ReturnType<McpConnection['callTool']>>;
    let reuse = false;
    try {
      result = header
        ? await callAsUser(connection.config, header, {
            remoteName: remote,
            args: invocation.arguments,
            options,
          })
        : await (taken?.session ?? connection).callTool(remote, invocation.arguments, options);
      reuse = true;
    } catch (error) {
      if (error instanceof CredentialRefusedError) throw refused(invocation, server, perUser!);
      if (relay?.cancelled?.aborted) throw hostCancelled(invocation, server);
      throw failure(error, {
        invocation,
        server,
        connection: header ? null : connection,
        relayed: taken !== null,
      });
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

  /** The run's user's credential as the server wants it sent, or a result telling the person how to connect it. */
  private async userHeader(invocation: Invocation, server: string, config: UserCredentialConfig) {
    const user = invocation.run.userId;
    const found = await this.credentials.lookup(user, server, config);
    if (found.ok) return credentialHeader(config, found.value);
    if (found.unreadable)
      throw new RecoverableToolError(
        'upstream_credential_unreadable',
        `The stored credential of ${user} for the MCP server ${server} cannot be used (${found.reason}), so ${invocation.spec.name} did not run. An admin must fix CREDENTIALS_KEY, or ${user} sets the credential again.`,
      );
    throw new RecoverableToolError(
      'upstream_credential_missing',
      `The MCP server ${server} acts for each user with their own credential, and ${
        user ?? 'this run'
      } has none that can be used (${found.reason}), so ${invocation.spec.name} did not run. ${howToConnect(server, config)} Then call it again.`,
    );
  }
}

/** What the person does to connect their credential; the model passes it on. */
function howToConnect(server: string, config: UserCredentialConfig): string {
  return config.mode === 'STORED'
    ? `The user sets it once with the GraphQL mutation setUpstreamCredential(server: "${server}", secret: …) or the CLI \`mcp credential set ${server}\`.`
    : `It is exchanged from the user's IdP sign-in: the user calls through the MCP gateway signed in with the IdP (or calls connectUpstreamCredential(server: "${server}") with an IdP token).`;
}

function refused(invocation: Invocation, server: string, config: UserCredentialConfig) {
  return new RecoverableToolError(
    'upstream_credential_rejected',
    `The MCP server ${server} refused the credential of ${invocation.run.userId}, so ${invocation.spec.name} did not run. ${howToConnect(server, config)} Then call it again.`,
  );
}

function notConnected(server: string, name: string, connection: McpConnection | undefined) {
  const state = connection ? ` (${connection.describeState()})` : '';
  return new RecoverableToolError(
    'mcp_not_connected',
    `The MCP server ${server} is not connected${state}, so ${name} could not run. Try again later or continue without it.`,
  );
}

function hostCancelled(invocation: Invocation, server: string) {
  return new RecoverableToolError(
    'cancelled',
    `The MCP host cancelled its request, so the call to ${invocation.spec.name} was cancelled at the MCP server ${server}; it may have partly run.`,
  );
}

/** `connection` is null for a call over its own user session: a failure there says nothing of the shared one. */
function failure(
  error: unknown,
  {
    invocation,
    server,
    connection,
    relayed,
  }: { invocation: Invocation; server: string; connection: McpConnection | null; relayed: boolean },
): unknown {
  const name = invocation.spec.name;
  // Cancelled or timed out by the dispatcher, which words those results itself.
  if (invocation.signal.aborted) return error;
  if (error instanceof NotConnectedError) return notConnected(server, name, connection ?? undefined);
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
  if (!relayed) connection?.reportBroken(error);
  return new RecoverableToolError(
    'mcp_connection_lost',
    `The connection to the MCP server ${server} failed during the call to ${name} (${(error as Error).message ?? String(error)}); it may have partly run. Try again later or continue without it.`,
  );
}
