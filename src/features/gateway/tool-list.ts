import type { PolicyService } from '../../calls/index.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { type Advertised, advertise, advertisedName, decodeAdvertised } from './rules/names.js';

/** The gateway's own tool: listed on /mcp whatever the policy says, since it only reads the caller's own calls. */
export const AWAIT_TOOL = 'gateway.await_approval';
export const AWAIT_TOOL_ADVERTISED = advertisedName(AWAIT_TOOL);

export interface VisibleTools {
  specs: Map<string, ToolSpec>;
  advertised: Advertised;
}

/** What a token's user and profile may see: the policy-effective tools that are offered now. */
export async function visibleTools(
  policy: PolicyService,
  context: { userId: string | null; profileId: string | null },
): Promise<VisibleTools> {
  const effective = await policy.effectiveTools({ ...context, planNodeId: null });
  const specs = new Map<string, ToolSpec>();
  for (const tool of effective)
    if (tool.visible && tool.tool.name !== AWAIT_TOOL) specs.set(tool.tool.name, tool.tool);
  return { specs, advertised: advertise(specs.keys()) };
}

/** The registry name a host meant, or null: a tool it may not see is answered as one that does not exist. */
export function resolveCalled(called: string, visible: VisibleTools): string | null {
  return decodeAdvertised(called, visible.advertised, new Set(visible.specs.keys()));
}

/** A registry tool as an MCP Tool: its advertised name, schemas and hints as the registry has them. */
export function mcpToolOf(advertised: string, spec: ToolSpec) {
  return {
    name: advertised,
    title: spec.title,
    description: spec.description,
    inputSchema: spec.inputSchema as { type: 'object'; [k: string]: unknown },
    ...(spec.outputSchema
      ? { outputSchema: spec.outputSchema as { type: 'object'; [k: string]: unknown } }
      : {}),
    annotations: {
      title: spec.title,
      readOnlyHint: spec.annotations.readOnly,
      destructiveHint: spec.annotations.destructive,
      idempotentHint: spec.annotations.idempotent,
      openWorldHint: spec.annotations.openWorld,
    },
    _meta: { 'agent-tool-system/name': spec.name },
  };
}

export const awaitToolDefinition = {
  name: AWAIT_TOOL_ADVERTISED,
  title: 'Wait for an approval',
  description:
    'Waits for a person to decide a call that was answered as pending approval, and returns its result once decided. Pass the callId from the pending answer; maxWaitMs caps the wait (at most the server’s hold).',
  inputSchema: {
    type: 'object' as const,
    properties: {
      callId: { type: 'string', description: 'The callId of the pending answer.' },
      maxWaitMs: { type: 'integer', minimum: 0, description: 'How long to wait at most, in milliseconds.' },
    },
    required: ['callId'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  _meta: { 'agent-tool-system/name': AWAIT_TOOL },
};
