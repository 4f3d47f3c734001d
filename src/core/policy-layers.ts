/**
 * How the layers of policy rank and combine for one tool: which deny or grant decides, how a rule
 * is quoted in a reason, and which rules are in force once conditions are decided.
 */
import { describeCondition } from './policy-conditions.js';
import type { PolicyLayer, PolicyRule } from './policy-rule.js';

/** `PROFILE rule r1 (ALLOW "workspace.write_file" when /path (path) glob "output/drafts/**")` */
export function ruleName(rule: PolicyRule): string {
  const when =
    rule.conditions.length > 0 ? ` when ${rule.conditions.map(describeCondition).join(' and ')}` : '';
  return `${rule.layer} rule ${rule.id} (${rule.effect} "${rule.toolPattern}"${when})`;
}

/** The rule's name and the reason it was written with: how a deciding rule is quoted. */
export function describeRule(rule: PolicyRule): string {
  return `${ruleName(rule)}${rule.reason ? `: ${rule.reason}` : ''}`;
}

/** Denies are reported in this order: the first one found is the deciding rule. */
export const denyOrder: PolicyLayer[] = ['PLATFORM', 'USER', 'PLAN_NODE', 'PROFILE', 'SOURCE'];
/** The most specific allowing layer is named as the reason a tool is visible. */
export const allowOrder: PolicyLayer[] = ['PLAN_NODE', 'USER', 'PROFILE', 'SOURCE', 'PLATFORM'];

export function byLayer(rules: PolicyRule[], order: PolicyLayer[]): PolicyRule | undefined {
  for (const layer of order) {
    const found = rules.find((r) => r.layer === layer);
    if (found) return found;
  }
  return undefined;
}

export const hasConditions = (rule: PolicyRule) => rule.conditions.length > 0;

/**
 * The rules in force when `holds` says which rules with conditions apply. A granting rule whose
 * conditions hold is more specific than the unconditional grants of its own layer and replaces
 * them (ALLOW output/drafts/** beside ASK everything of the same layer); it never touches
 * another layer's rules, so a USER condition cannot lift a PLATFORM ASK, and denies always count.
 */
export function inForce(matching: readonly PolicyRule[], holds: (rule: PolicyRule) => boolean) {
  const held = matching.filter((r) => !hasConditions(r) || holds(r));
  const specific = new Set(held.filter((r) => hasConditions(r) && r.effect !== 'DENY').map((r) => r.layer));
  const effective = held.filter((r) => r.effect === 'DENY' || hasConditions(r) || !specific.has(r.layer));
  return { held, effective };
}
