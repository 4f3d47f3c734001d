import type { GrantScope } from '../../../core/grant.js';
import {
  conditionHolds,
  describeCondition,
  type PathCanonicaliser,
  type PolicyCondition,
  type PolicyConditionInput,
} from '../../../core/policy-conditions.js';
import type { PolicyLayer } from '../../../core/policy-rule.js';

/**
 * What a grant would be, worked out once from the call, its run and what the person asked for:
 * grantPreview shows it, and approving with the same scope saves exactly it.
 */
export interface GrantPlan {
  scope: GrantScope;
  toolName: string;
  conditions: PolicyCondition[];
  /** ALWAYS: the policy layer of the rule; null otherwise. */
  layer: PolicyLayer | null;
  userId: string | null;
  profileId: string | null;
  /** RUN: the run it covers. */
  runId: string | null;
  /** ALWAYS: the setPolicyRule input that is saved, exactly; null otherwise. */
  rule: GrantRuleInput | null;
  summary: string;
}

/** A policy rule input as setPolicyRule takes it. */
export interface GrantRuleInput {
  layer: 'USER' | 'PROFILE';
  scopeId: string;
  toolPattern: string;
  effect: 'ALLOW';
  skipApproval: true;
  reason: string;
  conditions: PolicyConditionInput[];
}

export interface PlanInput {
  scope: GrantScope;
  call: { id: string; name: string };
  run: { id: string; userId: string | null };
  conditions: PolicyCondition[];
  /** ALWAYS: the profile to put the rule on instead of the run's user. */
  profileId: string | null;
  /** Who grants, as the journal names them. */
  actor: string;
}

/** The input form of a stored condition, which setPolicyRule turns back into the same condition. */
export function conditionInputOf(condition: PolicyCondition): PolicyConditionInput {
  return { pointer: condition.pointer, path: condition.path, [condition.operator]: condition.value };
}

const when = (conditions: PolicyCondition[]) =>
  conditions.length > 0 ? ` when ${conditions.map(describeCondition).join(' and ')}` : '';

/**
 * The plan, or why there can be none: an ALWAYS grant needs a layer, the run's user's or a profile.
 * Who may grant it is the service's question.
 */
export function planGrant(input: PlanInput): { plan: GrantPlan } | { problem: string } {
  const { scope, call, run, conditions } = input;
  const base = { scope, toolName: call.name, conditions, layer: null, rule: null };
  const narrowed = when(conditions);
  switch (scope) {
    case 'ONCE':
      return {
        plan: {
          ...base,
          conditions: [],
          userId: run.userId,
          profileId: null,
          runId: null,
          summary: `Approves call ${call.id} only; the next call to ${call.name} asks again.`,
        },
      };
    case 'RUN':
      return {
        plan: {
          ...base,
          userId: run.userId,
          profileId: null,
          runId: run.id,
          summary: `Approves every later call to ${call.name}${narrowed} in run ${run.id} without asking, until the run ends or the grant is revoked. A policy DENY and an earlier denial of an identical call still win.`,
        },
      };
    case 'ALWAYS': {
      const layer = input.profileId ? 'PROFILE' : 'USER';
      const scopeId = input.profileId ?? run.userId;
      if (!scopeId)
        return {
          problem: `run ${run.id} has no user, so there is no USER layer to save the rule on; an admin may give grantProfileId`,
        };
      const rule: GrantRuleInput = {
        layer,
        scopeId,
        toolPattern: call.name,
        effect: 'ALLOW',
        skipApproval: true,
        reason: `always allowed by ${input.actor} when approving call ${call.id}`,
        conditions: conditions.map(conditionInputOf),
      };
      const where = layer === 'USER' ? `user ${scopeId}` : `profile ${scopeId}`;
      return {
        plan: {
          ...base,
          layer,
          userId: layer === 'USER' ? scopeId : null,
          profileId: layer === 'PROFILE' ? scopeId : null,
          runId: null,
          rule,
          summary: `Saves the policy rule ${layer} ${scopeId}: ALLOW "${call.name}"${narrowed}, waiving the default approval gates, for every run of ${where}. An ASK or DENY of another layer still applies. Revoking the grant removes the rule.`,
        },
      };
    }
  }
}

/** Whether a standing grant covers a call: the same tool, and every condition holds on its validated arguments. */
export function grantCovers(
  grant: { toolName: string; conditions: readonly PolicyCondition[] },
  name: string,
  args: Record<string, unknown>,
  canonicalPath: PathCanonicaliser,
): boolean {
  return grant.toolName === name && grant.conditions.every((c) => conditionHolds(c, args, canonicalPath));
}
