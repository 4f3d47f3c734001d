import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** Where the gateway puts a held call's pending state in a tools/call result. */
const APPROVAL = 'agent-tool-system/approval';
const NOTE_PATH = 'output/mcp-note.md';

interface Pending {
  status: string;
  callId: string;
  consoleUrl: string;
  retryAfterMs: number;
  expiresAt: string | null;
}

type CallResult = Awaited<ReturnType<Client['callTool']>>;
const pendingOf = (result: CallResult) => (result._meta?.[APPROVAL] as Pending | undefined) ?? null;
const textOf = (result: CallResult) =>
  ((result.content as { type: string; text?: string }[] | undefined) ?? [])
    .map((part) => (part.type === 'text' ? part.text : `[${part.type}]`))
    .join(' ')
    .replace(/\s+/g, ' ')
    .slice(0, 160);

/**
 * The loop an MCP host plays against the gateway, with the SDK client on /mcp bound to the demo's
 * run (X-Run-Id, so its workspace is the run's): list the tools, make an allowed call, make a call
 * that needs a person (held, then answered pending with the console link), and call again with
 * exactly the same arguments until the decision's outcome comes back. True when it got there.
 */
export async function playMcp(
  origin: string,
  agentToken: string,
  runId: string,
  log: (line: string) => void,
) {
  const client = new Client({ name: 'demo-mcp-host', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', origin), {
    requestInit: { headers: { authorization: `Bearer ${agentToken}`, 'x-run-id': runId } },
  });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`the MCP gateway at ${origin}/mcp did not take the session: ${(error as Error).message}`);
  }
  try {
    const { tools } = await client.listTools();
    log(`MCP: ${tools.length} tools at ${origin}/mcp: ${tools.map((t) => t.name).join(', ')}`);

    const listed = await client.callTool({ name: 'workspace__list_files', arguments: {} });
    log(`MCP: workspace__list_files (allowed) → ${textOf(listed) || '(no text)'}`);

    const write = {
      name: 'workspace__write_file',
      arguments: {
        path: NOTE_PATH,
        content: 'Written by an MCP host through the gateway.\n',
        mode: 'create',
      },
    };
    log('MCP: workspace__write_file needs a person: the gateway holds the call…');
    let result = await client.callTool(write, undefined, { timeout: 10 * 60_000 });
    for (let attempt = 1; pendingOf(result); attempt += 1) {
      const pending = pendingOf(result)!;
      if (attempt === 1)
        log(`MCP: pending approval (call ${pending.callId}): approve it at\n\n    ${pending.consoleUrl}\n`);
      if (attempt > 60) {
        log('MCP: still pending after 60 retries; leaving it in the queue');
        return false;
      }
      const wait = Math.min(pending.retryAfterMs, 5_000);
      log(
        `MCP: calling again with the same arguments in ${(wait / 1000).toFixed(0)} s (it attaches to call ${pending.callId})`,
      );
      await new Promise((resolve) => setTimeout(resolve, wait));
      result = await client.callTool(write, undefined, { timeout: 10 * 60_000 });
    }
    log(`MCP: workspace__write_file → ${result.isError ? 'error: ' : ''}${textOf(result) || '(no text)'}`);
    return !result.isError;
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }
}
