import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** An MCP host: the SDK client over Streamable HTTP, with a bearer token when given. */
export async function mcpClient(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'bench-gateway', version: '1.0.0' });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** A tools/call that must end well: a bench of failures would measure the wrong thing. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
  if (result.isError)
    throw new Error(`${name} answered an error: ${JSON.stringify(result.content).slice(0, 500)}`);
  return result;
}

/** The pending approval's call id, read back from the approval queue by the call's arguments. */
export async function pendingCallId(
  gql: (query: string, variables?: Record<string, unknown>) => Promise<Record<string, unknown>>,
  marker: number,
): Promise<string> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const data = (await gql('{ pendingApprovals(first: 100) { edges { node { id arguments } } } }')) as {
      pendingApprovals: { edges: { node: { id: string; arguments: { marker?: number } } }[] };
    };
    const found = data.pendingApprovals.edges.find((e) => e.node.arguments.marker === marker);
    if (found) return found.node.id;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`the held call ${marker} never reached the approval queue`);
}
