import { waitFor } from './processes.js';

/** One GraphQL request as the admin; any error ends the run with the operation's text. */
async function gql<T>(
  url: string,
  token: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(30_000),
  });
  const answer = (await response.json()) as { data?: T; errors?: { message: string }[] };
  if (answer.errors?.length)
    throw new Error(
      `GraphQL ${query.split('(')[0]?.trim()}: ${answer.errors.map((e) => e.message).join('; ')}`,
    );
  return answer.data as T;
}

export const PROFILE = 'conformance';

/**
 * Registers the reference server as an upstream MCP server and lets an AGENT token's profile call
 * its tools without a person: each tool's permission is lowered to ALWAYS_ALLOW and a PROFILE rule
 * allows them with skipApproval (MCP tools otherwise wait for approval, docs/mcp.md). The calls
 * still go through the policy. Returns the agent token.
 */
export async function registerUpstream(
  graphqlUrl: string,
  admin: string,
  name: string,
  upstreamUrl: string,
): Promise<string> {
  const { createApiToken } = await gql<{ createApiToken: { token: string } }>(
    graphqlUrl,
    admin,
    'mutation($profiles: [String!]) { createApiToken(input: { role: AGENT, name: "conformance", userId: "conformance", profiles: $profiles }) { token } }',
    { profiles: [PROFILE] },
  );
  await gql(
    graphqlUrl,
    admin,
    'mutation($name: String!, $url: String!) { addMcpServer(input: { name: $name, transport: STREAMABLE_HTTP, url: $url }) { name } }',
    {
      name,
      url: upstreamUrl,
    },
  );
  type Listed = {
    mcpServer: {
      status: { state: string; lastError: string | null };
      tools: { present: boolean; tool: { name: string } | null }[];
    };
  };
  const tools = await waitFor(`the upstream server ${name} connected with its tools`, 60_000, async () => {
    const { mcpServer } = await gql<Listed>(
      graphqlUrl,
      admin,
      'query($name: String!) { mcpServer(name: $name) { status { state lastError } tools { present tool { name } } } }',
      { name },
    );
    const names = mcpServer.tools.flatMap((t) => (t.present && t.tool ? [t.tool.name] : []));
    return names.length > 0 ? names : undefined;
  });
  for (const tool of tools)
    await gql(
      graphqlUrl,
      admin,
      'mutation($name: String!) { updateTool(name: $name, input: { permission: ALWAYS_ALLOW }) { name } }',
      { name: tool },
    );
  await gql(
    graphqlUrl,
    admin,
    'mutation($scope: String, $pattern: String!) { setPolicyRule(input: { layer: PROFILE, scopeId: $scope, toolPattern: $pattern, effect: ALLOW, skipApproval: true }) { id } }',
    { scope: PROFILE, pattern: `mcp.${name}.*` },
  );
  return createApiToken.token;
}
