import type { PolicyService, RegistryService } from '../../calls/index.js';
import type { Availability } from '../../core/policy.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { type Advertised, advertise, advertisedName, decodeAdvertised } from './rules/names.js';

/** The gateway's own tool: listed on /mcp whatever the policy says, since it only reads the caller's own calls. */
export const AWAIT_TOOL = 'gateway.await_approval';
export const AWAIT_TOOL_ADVERTISED = advertisedName(AWAIT_TOOL);

export interface VisibleTools {
  specs: Map<string, ToolSpec>;
  advertised: Advertised;
  /** The tools whose calls the policy may make wait for a person. */
  asking: Set<string>;
}

/** What a token's user and profile may see: the policy-effective tools that are offered now. */
export async function visibleTools(
  policy: PolicyService,
  context: { userId: string | null; profileId: string | null },
): Promise<VisibleTools> {
  const effective = await policy.effectiveTools({ ...context, planNodeId: null });
  const specs = new Map<string, ToolSpec>();
  const asking = new Set<string>();
  for (const tool of effective) {
    if (!tool.visible || tool.tool.name === AWAIT_TOOL) continue;
    specs.set(tool.tool.name, tool.tool);
    if (tool.approvalRequired) asking.add(tool.tool.name);
  }
  return { specs, advertised: advertise(specs.keys()), asking };
}

/** A tool a host may call, and whether the policy may make its call wait for a person. */
export interface CalledTool {
  name: string;
  mayAsk: boolean;
  /** Whether it can run now, as read to resolve it: the request reuses it rather than reading it again. */
  availability?: Availability;
}

/**
 * The one tool `name` if this user and profile may see it now, resolved exactly as `visibleTools`
 * resolves it but for that tool alone: a call needs its own tool's view, not the whole list (the
 * other tools' policy, their availability queries and their advertised names' hashes).
 */
export async function visibleTool(
  deps: { policy: PolicyService; registry: RegistryService },
  context: { userId: string | null; profileId: string | null },
  name: string,
): Promise<CalledTool | null> {
  if (name === AWAIT_TOOL) return null;
  const spec = await deps.registry.get(name);
  if (!spec) return null;
  const availability = await deps.policy.availabilityOf([spec]);
  const view = await deps.policy.viewFor(
    spec,
    { ...context, planNodeId: null },
    { caller: 'MODEL', availability },
  );
  return view.visible ? { name, mayAsk: view.approvalRequired, availability } : null;
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
