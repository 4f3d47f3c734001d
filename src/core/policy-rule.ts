import { z } from 'zod';
import { type PolicyCondition, policyConditionsInputSchema } from './policy-conditions.js';
import { type ToolBudget, toolBudgetSchema, toolSources } from './tool-spec.js';

export const policyLayers = ['PLATFORM', 'USER', 'PROFILE', 'PLAN_NODE', 'SOURCE'] as const;
export const policyEffects = ['ALLOW', 'DENY', 'ASK'] as const;
export type PolicyLayer = (typeof policyLayers)[number];
type PolicyEffect = (typeof policyEffects)[number];

export interface PolicyRule {
  id: string;
  layer: PolicyLayer;
  scopeId: string | null;
  toolPattern: string;
  effect: PolicyEffect;
  /** An ALLOW that also waives the default approval gates (MCP/extension source, destructive, costly). */
  skipApproval: boolean;
  budget: ToolBudget | null;
  reason: string | null;
  /** The rule applies to a call only when all of these hold on its arguments; empty for a rule that always applies. */
  conditions: PolicyCondition[];
}

/** Tool names plus the glob characters `*` and `?`; nothing else can appear in a pattern. */
const TOOL_PATTERN = /^[A-Za-z0-9_.\-*?]{1,128}$/;

export const policyRuleInputSchema = z
  .object({
    id: z.uuid().nullish(),
    layer: z.enum(policyLayers),
    scopeId: z.string().trim().min(1).max(200).nullish(),
    toolPattern: z.string().regex(TOOL_PATTERN, 'must be a tool name or a glob of A-Z a-z 0-9 _ - . * ?'),
    effect: z.enum(policyEffects),
    skipApproval: z.boolean().nullish(),
    budget: toolBudgetSchema.nullish(),
    reason: z.string().trim().max(500).nullish(),
    conditions: policyConditionsInputSchema.nullish(),
  })
  .superRefine((rule, ctx) => {
    if (rule.layer === 'PLATFORM' && rule.scopeId) {
      ctx.addIssue({
        code: 'custom',
        path: ['scopeId'],
        message: 'PLATFORM rules apply everywhere and take no scopeId',
      });
    }
    if ((rule.layer === 'USER' || rule.layer === 'PROFILE' || rule.layer === 'PLAN_NODE') && !rule.scopeId) {
      ctx.addIssue({
        code: 'custom',
        path: ['scopeId'],
        message: `${rule.layer} rules need the scopeId they apply to`,
      });
    }
    if (rule.layer === 'SOURCE' && !(toolSources as readonly string[]).includes(rule.scopeId ?? '')) {
      ctx.addIssue({
        code: 'custom',
        path: ['scopeId'],
        message: `SOURCE rules need a scopeId of ${toolSources.join(', ')}`,
      });
    }
    if (rule.skipApproval && rule.effect !== 'ALLOW') {
      ctx.addIssue({
        code: 'custom',
        path: ['skipApproval'],
        message: 'only an ALLOW rule can waive approval',
      });
    }
  });
export type PolicyRuleInput = z.input<typeof policyRuleInputSchema>;
