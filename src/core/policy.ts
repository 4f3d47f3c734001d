import { defaultApprovalGate } from './policy-approval-gates.js';
import { tightest } from './policy-budget.js';
import {
  conditionHolds,
  describeCondition,
  type PathCanonicaliser,
  type PolicyCondition,
} from './policy-conditions.js';
import {
  allowOrder,
  byLayer,
  denyOrder,
  describeRule,
  hasConditions,
  inForce,
  ruleName,
} from './policy-layers.js';
import { patternMatches } from './policy-pattern.js';
import type { PolicyRule } from './policy-rule.js';
import type { policyCallers } from './tool-call.js';
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
export type PolicyCaller = (typeof policyCallers)[number];

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

export interface ResolveOptions {
  availability?: Availability | undefined;
  /** MODEL unless a person is calling. */
  caller?: PolicyCaller | undefined;
  /**
   * A call's validated arguments: the rules with conditions are decided on them. Without them
   * (a view of the tools, not one call) the outcome is the one no condition holding gives, or,
   * when that hides the tool, the one with every condition of a granting rule holding.
   */
  arguments?: Record<string, unknown> | undefined;
  /** The workspace path rules for path conditions; without them a path condition holds for nothing. */
  canonicalPath?: PathCanonicaliser | undefined;
}

/** One condition of a rule and whether it held on the call's arguments. */
export interface ConditionResult {
  rule: PolicyRule;
  condition: PolicyCondition;
  holds: boolean;
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
  /**
   * Rules with conditions change this outcome: without arguments, some arguments could give
   * another one; for a call, `decidingConditions` says which conditions did.
   */
  conditional: boolean;
  /**
   * The rule whose effect decided: the deny, the ASK, or the allow the reason names; null when no
   * rule did (a disabled tool, its own DENY permission, a plan node's list, USER_ONLY, no allow).
   */
  decidingRule: PolicyRule | null;
  /**
   * For a call: the conditions of each rule whose holding or not changed the outcome (all of a
   * holding rule's, the first failing one of a rule that did not apply), and the deciding rule's.
   */
  decidingConditions: ConditionResult[];
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

function remaining(tool: ToolSpec, budget: ToolBudget, usage: RunUsage | undefined): number | null {
  const used = usage?.callsByTool.get(tool.name) ?? 0;
  const limits = [
    budget.maxCalls === null ? null : budget.maxCalls - used,
    usage?.maxCalls == null ? null : usage.maxCalls - usage.totalCalls,
    usage?.maxCallsPerTool == null ? null : usage.maxCallsPerTool - used,
  ].filter((n): n is number => n !== null);
  return limits.length === 0 ? null : Math.max(0, Math.min(...limits));
}

/** What one set of holding rules makes of a tool: everything but how conditions took part. */
type Outcome = Omit<EffectiveTool, 'conditional' | 'decidingConditions'>;

interface ToolInput {
  tool: ToolSpec;
  /** The rules whose layer, scope and pattern apply to the tool, with or without conditions. */
  matching: readonly PolicyRule[];
  context: PolicyContext;
  planNodeListsTools: boolean;
  usage: RunUsage | undefined;
  availability: Availability | undefined;
  caller: PolicyCaller;
}

function decideTool(input: ToolInput, holds: (rule: PolicyRule) => boolean): Outcome {
  const { tool, context, planNodeListsTools, usage, availability, caller } = input;
  const { held, effective } = inForce(input.matching, holds);
  const hidden = (reason: string, decidingRule: PolicyRule | null = null): Outcome => ({
    tool,
    visible: false,
    callable: false,
    permitted: false,
    unavailable: null,
    approvalRequired: false,
    reason,
    budget: tool.budget,
    remainingCalls: 0,
    decidingRule,
  });

  if (!tool.enabled) return hidden('tool is disabled');
  const denies = effective.filter((r) => r.effect === 'DENY');
  const strongDeny = byLayer(denies, ['PLATFORM', 'USER']);
  if (strongDeny) return hidden(`denied by ${describeRule(strongDeny)}`, strongDeny);
  if (tool.permission === 'DENY') return hidden('denied by the tool permission DENY');
  const deny = byLayer(denies, denyOrder);
  if (deny) return hidden(`denied by ${describeRule(deny)}`, deny);

  const grants = effective.filter((r) => r.effect !== 'DENY');
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
    ? `approval required by ${describeRule(ask)}`
    : tool.permission === 'APPROVAL_REQUIRED'
      ? 'approval required by the tool permission APPROVAL_REQUIRED'
      : gate && !waived
        ? `approval required: ${gate}`
        : null;

  // Limits are safety, not effect: a grant replaced by a more specific one still limits the tool.
  const budget = tightest([tool.budget, ...held.filter((r) => r.effect !== 'DENY').map((r) => r.budget)]);
  const allowedBy = ask && grant === ask ? '' : `allowed by ${describeRule(grant)}`;
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
    decidingRule: ask ?? grant,
  };
}

const sameOutcome = (a: Outcome, b: Outcome) =>
  a.permitted === b.permitted &&
  a.approvalRequired === b.approvalRequired &&
  (a.unavailable?.code ?? null) === (b.unavailable?.code ?? null);

/** A reason names at most three rules, so that it stays short however many rules there are. */
function listed(items: readonly string[], separator: string): string {
  const more = items.length > 3 ? ` and ${items.length - 3} more` : '';
  return `${items.slice(0, 3).join(separator)}${more}`;
}

/** Beyond this many rules with conditions on one tool, its view is marked conditional without trying each combination. */
const MAX_ENUMERATED = 8;

/**
 * A view without arguments. `conditional` is true when some combination of the tool's rules with
 * conditions holding gives another outcome than none holding (each rule taken as able to hold or
 * not on its own).
 */
function viewWithoutArguments(input: ToolInput, conditionalRules: readonly PolicyRule[]): EffectiveTool {
  const base = decideTool(input, () => false);
  if (conditionalRules.length === 0) return { ...base, conditional: false, decidingConditions: [] };
  const widest = decideTool(input, (r) => r.effect !== 'DENY');
  const shown = base.permitted || !widest.permitted ? base : widest;
  let conditional = conditionalRules.length > MAX_ENUMERATED;
  for (let mask = 1; !conditional && mask < 1 << conditionalRules.length; mask += 1) {
    const holding = new Set(conditionalRules.filter((_, i) => mask & (1 << i)));
    conditional = !sameOutcome(
      base,
      decideTool(input, (r) => holding.has(r)),
    );
  }
  return {
    ...shown,
    reason: conditional
      ? `${shown.reason}; depends on the arguments: ${listed(conditionalRules.map(ruleName), ', ')}`
      : shown.reason,
    conditional,
    decidingConditions: [],
  };
}

/** A call's view: conditions decided on its arguments, and the reason names the ones that decided. */
function viewForArguments(
  input: ToolInput,
  conditionalRules: readonly PolicyRule[],
  args: Record<string, unknown>,
  canonicalPath: PathCanonicaliser | undefined,
): EffectiveTool {
  const results = new Map(
    conditionalRules.map((rule) => [
      rule,
      rule.conditions.map((condition) => ({
        rule,
        condition,
        holds: conditionHolds(condition, args, canonicalPath),
      })),
    ]),
  );
  const holdsNow = (r: PolicyRule) => results.get(r)?.every((c) => c.holds) ?? false;
  const outcome = decideTool(input, holdsNow);
  const deciding: ConditionResult[] = [];
  const notApplied: string[] = [];
  for (const rule of conditionalRules) {
    const held = holdsNow(rule);
    const flipped = decideTool(input, (r) => (r === rule ? !held : holdsNow(r)));
    if (rule !== outcome.decidingRule && sameOutcome(outcome, flipped)) continue;
    const checked = results.get(rule)!;
    if (held) {
      deciding.push(...checked);
    } else {
      const failed = checked.find((c) => !c.holds)!;
      deciding.push(failed);
      notApplied.push(
        `${ruleName(rule)} does not apply: ${describeCondition(failed.condition)} does not hold`,
      );
    }
  }
  return {
    ...outcome,
    reason: notApplied.length > 0 ? `${outcome.reason}; ${listed(notApplied, '; ')}` : outcome.reason,
    conditional: deciding.length > 0,
    decidingConditions: deciding,
  };
}

/**
 * Layered policy resolution (seed §6). Pure: the same tools, rules, context and options always
 * give the same answer, so it is tested as a table. Precedence, strongest first:
 * disabled tool; platform deny (never overridden); user deny; the tool's own DENY permission;
 * any other deny (deny beats allow wherever each comes from); a plan node that lists tools narrows
 * the run to them; USER_ONLY tools are never shown to the model (a person may call them); a tool
 * no layer allows stays invisible. ASK is not deny: it keeps the tool visible and gates it by
 * approval. A tool policy permits is still not offered while it cannot run: its budget is used up,
 * or `availability` says why (no executor, its server or extension not connected anywhere).
 * A rule with conditions takes part only when they all hold on the call's arguments, and then
 * replaces the unconditional grants of its own layer (see `inForce`).
 */
export function resolvePolicy(
  tools: readonly ToolSpec[],
  rules: readonly PolicyRule[],
  context: PolicyContext,
  usage?: RunUsage,
  options: ResolveOptions = {},
): EffectiveTool[] {
  const { availability, caller = 'MODEL', canonicalPath } = options;
  const planNodeListsTools =
    context.planNodeId != null &&
    rules.some((r) => r.layer === 'PLAN_NODE' && r.scopeId === context.planNodeId && r.effect !== 'DENY');

  return tools.map((tool) => {
    const matching = rules.filter(
      (r) => ruleApplies(r, context, tool) && patternMatches(r.toolPattern, tool.name),
    );
    const input: ToolInput = { tool, matching, context, planNodeListsTools, usage, availability, caller };
    const conditionalRules = matching.filter(hasConditions);
    return options.arguments
      ? viewForArguments(input, conditionalRules, options.arguments, canonicalPath)
      : viewWithoutArguments(input, conditionalRules);
  });
}
