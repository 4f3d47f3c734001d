import picomatch from 'picomatch';
import type { PolicyLayer, PolicyRule } from './policy-rule.js';
import type { ToolBudget, ToolSpec } from './tool-spec.js';

export interface PolicyContext {
  userId?: string | null;
  profileId?: string | null;
  planNodeId?: string | null;
}

/** What a run has already used, so the view can say what is left. */
export interface RunUsage {
  maxCalls: number | null;
  maxCallsPerTool: number | null;
  totalCalls: number;
  callsByTool: ReadonlyMap<string, number>;
}

/**
 * Who makes the call. The model (and every agent or host asking on its behalf) never sees a
 * USER_ONLY tool; a person (an approver or admin calling on a run) may call one.
 */
export type PolicyCaller = 'MODEL' | 'PERSON';

/** Why a tool that policy allows cannot run now; the code is the one its refused call fails with. */
export interface Unavailability {
  code: 'budget_exhausted' | 'tool_unavailable' | 'mcp_not_connected' | 'extension_not_connected';
  reason: string;
}

/**
 * Whether each tool can run now (an executor for its source, its MCP server or extension connected
 * somewhere), by name: null when it can. Computed by a service; a name missing counts as runnable.
 */
export type Availability = ReadonlyMap<string, Unavailability | null>;

export interface PolicyConditions {
  availability?: Availability | undefined;
  /** MODEL unless a person is calling. */
  caller?: PolicyCaller | undefined;
}

export interface EffectiveTool {
  tool: ToolSpec;
  /** Offered to the caller: policy permits it and it can run now. */
  visible: boolean;
  callable: boolean;
  /** Policy lets this caller call the tool; a call it does not permit is a policy violation. */
  permitted: boolean;
  /** Why a permitted tool cannot run now (not offered; its call fails with this code); null when it can. */
  unavailable: Unavailability | null;
  approvalRequired: boolean;
  reason: string;
  budget: ToolBudget;
  /** Calls left under every applicable limit; null when nothing limits the count. */
  remainingCalls: number | null;
}

const matchers = new Map<string, (name: string) => boolean>();

export function patternMatches(pattern: string, name: string): boolean {
  let matcher = matchers.get(pattern);
  if (!matcher) {
    // Tool names are flat ids, not paths: `*` must cross dots (`mcp.*` covers `mcp.github.search`).
    matcher = picomatch(pattern, { dot: true, nobrace: true, noextglob: true, noglobstar: true });
    matchers.set(pattern, matcher);
  }
  return matcher(name);
}

function ruleApplies(rule: PolicyRule, context: PolicyContext, tool: ToolSpec): boolean {
  switch (rule.layer) {
    case 'PLATFORM':
      return true;
    case 'USER':
      return rule.scopeId === context.userId;
    case 'PROFILE':
      return rule.scopeId === context.profileId;
    case 'PLAN_NODE':
      return rule.scopeId === context.planNodeId;
    case 'SOURCE':
      return rule.scopeId === tool.source;
  }
}

function describe(rule: PolicyRule): string {
  const why = rule.reason ? `: ${rule.reason}` : '';
  return `${rule.layer} rule ${rule.id} (${rule.effect} "${rule.toolPattern}")${why}`;
}

/** Denies are reported in this order: the first one found is the deciding rule. */
const denyOrder: PolicyLayer[] = ['PLATFORM', 'USER', 'PLAN_NODE', 'PROFILE', 'SOURCE'];
/** The most specific allowing layer is named as the reason a tool is visible. */
const allowOrder: PolicyLayer[] = ['PLAN_NODE', 'USER', 'PROFILE', 'SOURCE', 'PLATFORM'];

function byLayer(rules: PolicyRule[], order: PolicyLayer[]): PolicyRule | undefined {
  for (const layer of order) {
    const found = rules.find((r) => r.layer === layer);
    if (found) return found;
  }
  return undefined;
}

function tightest(budgets: Array<ToolBudget | null>): ToolBudget {
  const min = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
  return budgets.reduce<ToolBudget>(
    (acc, b) =>
      b
        ? {
            maxCalls: min(acc.maxCalls, b.maxCalls),
            maxOutputTokens: min(acc.maxOutputTokens, b.maxOutputTokens),
            timeoutMs: min(acc.timeoutMs, b.timeoutMs),
            approvalTimeoutMs: min(acc.approvalTimeoutMs ?? null, b.approvalTimeoutMs ?? null),
          }
        : acc,
    { maxCalls: null, maxOutputTokens: null, timeoutMs: null, approvalTimeoutMs: null },
  );
}

function remaining(tool: ToolSpec, budget: ToolBudget, usage: RunUsage | undefined): number | null {
  const used = usage?.callsByTool.get(tool.name) ?? 0;
  const limits = [
    budget.maxCalls === null ? null : budget.maxCalls - used,
    usage?.maxCalls == null ? null : usage.maxCalls - usage.totalCalls,
    usage?.maxCallsPerTool == null ? null : usage.maxCallsPerTool - used,
  ].filter((n): n is number => n !== null);
  return limits.length === 0 ? null : Math.max(0, Math.min(...limits));
}

/** Seed §10 and ARCHITECTURE.md: gates that apply unless an ALLOW rule explicitly waives them. */
function defaultApprovalGate(tool: ToolSpec): string | null {
  if (tool.source === 'MCP' || tool.source === 'EXTENSION')
    return `${tool.source} tools need approval by default`;
  if (tool.annotations.destructive) return 'destructive tools need approval by default';
  if (tool.annotations.openWorld && !tool.annotations.readOnly) {
    return 'tools with external side effects need approval by default';
  }
  if (tool.annotations.cost === 'HIGH') return 'high-cost tools need approval by default';
  return null;
}

/**
 * Layered policy resolution (seed §6). Pure: the same tools, rules, context and conditions always
 * give the same answer, so it is tested as a table. Precedence, strongest first:
 * disabled tool; platform deny (never overridden); user deny; the tool's own DENY permission;
 * any other deny (deny beats allow wherever each comes from); a plan node that lists tools narrows
 * the run to them; USER_ONLY tools are never shown to the model (a person may call them); a tool
 * no layer allows stays invisible. ASK is not deny: it keeps the tool visible and gates it by
 * approval. A tool policy permits is still not offered while it cannot run: its budget is used up,
 * or `availability` says why (no executor, its server or extension not connected anywhere).
 */
export function resolvePolicy(
  tools: readonly ToolSpec[],
  rules: readonly PolicyRule[],
  context: PolicyContext,
  usage?: RunUsage,
  conditions: PolicyConditions = {},
): EffectiveTool[] {
  const { availability, caller = 'MODEL' } = conditions;
  const planNodeListsTools =
    context.planNodeId != null &&
    rules.some((r) => r.layer === 'PLAN_NODE' && r.scopeId === context.planNodeId && r.effect !== 'DENY');

  return tools.map((tool) => {
    const matching = rules.filter(
      (r) => ruleApplies(r, context, tool) && patternMatches(r.toolPattern, tool.name),
    );
    const hidden = (reason: string): EffectiveTool => ({
      tool,
      visible: false,
      callable: false,
      permitted: false,
      unavailable: null,
      approvalRequired: false,
      reason,
      budget: tool.budget,
      remainingCalls: 0,
    });

    if (!tool.enabled) return hidden('tool is disabled');
    const denies = matching.filter((r) => r.effect === 'DENY');
    const strongDeny = byLayer(denies, ['PLATFORM', 'USER']);
    if (strongDeny) return hidden(`denied by ${describe(strongDeny)}`);
    if (tool.permission === 'DENY') return hidden('denied by the tool permission DENY');
    const deny = byLayer(denies, denyOrder);
    if (deny) return hidden(`denied by ${describe(deny)}`);

    const grants = matching.filter((r) => r.effect !== 'DENY');
    if (planNodeListsTools && !grants.some((r) => r.layer === 'PLAN_NODE')) {
      return hidden(`plan node ${context.planNodeId} does not list this tool`);
    }
    if (tool.visibility === 'USER_ONLY' && caller === 'MODEL')
      return hidden('USER_ONLY tool: never offered to the model; a person may call it on a run');
    const grant = byLayer(grants, allowOrder);
    if (!grant) return hidden('no rule allows this tool (tools are invisible by default)');

    const ask = byLayer(
      grants.filter((r) => r.effect === 'ASK'),
      allowOrder,
    );
    const waived = grants.some((r) => r.effect === 'ALLOW' && r.skipApproval);
    const gate = defaultApprovalGate(tool);
    const approvalReason = ask
      ? `approval required by ${describe(ask)}`
      : tool.permission === 'APPROVAL_REQUIRED'
        ? 'approval required by the tool permission APPROVAL_REQUIRED'
        : gate && !waived
          ? `approval required: ${gate}`
          : null;

    const budget = tightest([tool.budget, ...grants.map((r) => r.budget)]);
    const allowedBy = ask && grant === ask ? '' : `allowed by ${describe(grant)}`;
    const remainingCalls = remaining(tool, budget, usage);
    const unavailable: Unavailability | null =
      remainingCalls === 0
        ? { code: 'budget_exhausted', reason: 'call budget used up (0 calls left in this run)' }
        : (availability?.get(tool.name) ?? null);
    const policyReason = [allowedBy, approvalReason].filter(Boolean).join('; ');
    return {
      tool,
      visible: unavailable === null,
      callable: unavailable === null,
      permitted: true,
      unavailable,
      approvalRequired: approvalReason !== null,
      reason: unavailable ? `cannot run now: ${unavailable.reason} (${policyReason})` : policyReason,
      budget,
      remainingCalls,
    };
  });
}
