import { RunType } from '../../calls/graphql/run.js';
import { builder, scopes } from '../../graphql/builder.js';
import type { McpRunRow } from './tables.js';

const McpClientType = builder.objectRef<McpRunRow>('McpClient').implement({
  description: 'The MCP host whose calls made a run through the MCP gateway.',
  fields: (t) => ({
    name: t.exposeString('clientName', {
      description: 'The host’s clientInfo.name (`unknown` without a session).',
    }),
    version: t.exposeString('clientVersion', { description: 'The host’s clientInfo.version.' }),
    server: t.exposeString('server', {
      description: 'The upstream MCP server of `/mcp/<server>`; null for `/mcp`.',
      nullable: true,
    }),
    sessionId: t.exposeString('sessionId', {
      description: 'The MCP session whose run it is; null for a run named by X-Run-Id or a day run.',
      nullable: true,
    }),
  }),
});

builder.objectField(RunType, 'mcpClient', (t) =>
  t.field({
    description:
      'The MCP host and upstream server whose calls made this run through the MCP gateway; null for other runs.',
    type: McpClientType,
    nullable: true,
    authScopes: scopes.readers,
    resolve: (run, _args, ctx) => ctx.services.gateway.sessions.clientOfRun(run.id),
  }),
);
