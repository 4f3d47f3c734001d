import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { checkToolSchema } from '../../core/json-schema.js';
import {
  type JsonSchema,
  normalizeAnnotations,
  normalizeBudget,
  TOOL_NAME_PATTERN,
  type ToolSpec,
} from '../../core/tool-spec.js';
import type { McpToolHints } from './tables.js';

const mcpToolName = (server: string, remote: string) => `mcp.${server}.${remote}`;

export type MappedTool =
  | { ok: true; remoteName: string; spec: ToolSpec; hints: McpToolHints }
  | { ok: false; remoteName: string; reason: string; hints: McpToolHints };

function hintsOf(tool: Tool): McpToolHints {
  const a = tool.annotations;
  return {
    title: a?.title,
    readOnlyHint: a?.readOnlyHint,
    destructiveHint: a?.destructiveHint,
    idempotentHint: a?.idempotentHint,
    openWorldHint: a?.openWorldHint,
  };
}

/**
 * Turns one tool a server lists into a ToolSpec, or says why it cannot be registered.
 *
 * The server is not trusted. Its hints are kept as annotations with MCP's own defaults (an
 * unannotated tool is destructive and open-world), except `idempotent`, which is always false:
 * the dispatcher re-runs idempotent calls whose process died, and a server's say-so must not
 * make us run a call twice. Nothing a server declares can lower approval either: every MCP tool
 * is registered with permission APPROVAL_REQUIRED (an ALLOW rule's skipApproval does not waive
 * it), which only an admin can change, and the policy's MCP source default stays behind it.
 */
export function mapRemoteTool(server: string, tool: Tool): MappedTool {
  const hints = hintsOf(tool);
  const name = mcpToolName(server, tool.name);
  const reject = (reason: string): MappedTool => ({ ok: false, remoteName: tool.name, reason, hints });
  if (!TOOL_NAME_PATTERN.test(name)) {
    return reject(`its registry name ${JSON.stringify(name)} is not 1-128 characters of A-Z a-z 0-9 _ - .`);
  }
  if (tool.execution?.taskSupport === 'required')
    return reject('it can only run as an MCP task, which this server does not use');
  const input = checkToolSchema(tool.inputSchema, true);
  if (!input.ok) return reject(`its inputSchema ${input.message}`);
  if (tool.outputSchema) {
    const output = checkToolSchema(tool.outputSchema, false);
    if (!output.ok) return reject(`its outputSchema ${output.message}`);
  }
  const title = tool.title ?? hints.title ?? tool.name;
  return {
    ok: true,
    remoteName: tool.name,
    hints,
    spec: {
      name,
      title,
      description: tool.description?.trim() || title,
      inputSchema: tool.inputSchema as JsonSchema,
      outputSchema: (tool.outputSchema as JsonSchema | undefined) ?? null,
      annotations: {
        ...normalizeAnnotations({
          readOnly: hints.readOnlyHint,
          destructive: hints.destructiveHint,
          openWorld: hints.openWorldHint,
        }),
        idempotent: false,
      },
      visibility: 'MODEL',
      permission: 'APPROVAL_REQUIRED',
      budget: normalizeBudget(null),
      source: 'MCP',
      enabled: true,
    },
  };
}
