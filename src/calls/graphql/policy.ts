import type { EffectiveTool } from '../../core/policy.js';
import {
  type PolicyRule,
  policyEffects,
  policyLayers,
  policyRuleInputSchema,
} from '../../core/policy-rule.js';
import { builder, scopes } from '../../graphql/builder.js';
import { ToolBudgetInput, ToolBudgetType, ToolType } from './tool.js';

export const PolicyLayerEnum = builder.enumType('PolicyLayer', { values: policyLayers });
export const PolicyEffectEnum = builder.enumType('PolicyEffect', { values: policyEffects });

export const PolicyRuleType = builder.objectRef<PolicyRule>('PolicyRule').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    layer: t.expose('layer', { type: PolicyLayerEnum }),
    scopeId: t.exposeString('scopeId', { nullable: true }),
    toolPattern: t.exposeString('toolPattern'),
    effect: t.expose('effect', { type: PolicyEffectEnum }),
    skipApproval: t.exposeBoolean('skipApproval', {
      description:
        'An ALLOW that also waives the default approval gates (MCP/extension source, destructive, costly).',
    }),
    budget: t.expose('budget', { type: ToolBudgetType, nullable: true }),
    reason: t.exposeString('reason', { nullable: true }),
  }),
});

export const EffectiveToolType = builder.objectRef<EffectiveTool>('EffectiveTool').implement({
  fields: (t) => ({
    tool: t.expose('tool', { type: ToolType }),
    visible: t.exposeBoolean('visible'),
    callable: t.exposeBoolean('callable'),
    approvalRequired: t.exposeBoolean('approvalRequired'),
    reason: t.exposeString('reason', { description: 'Names the deciding rule.' }),
    budget: t.expose('budget', { type: ToolBudgetType, nullable: true }),
    remainingCalls: t.exposeInt('remainingCalls', { nullable: true }),
  }),
});

const PolicyRuleInput = builder.inputType('PolicyRuleInput', {
  fields: (t) => ({
    id: t.id({ description: 'Set to replace an existing rule.' }),
    layer: t.field({ type: PolicyLayerEnum, required: true }),
    scopeId: t.string(),
    toolPattern: t.string({ required: true }),
    effect: t.field({ type: PolicyEffectEnum, required: true }),
    skipApproval: t.boolean(),
    budget: t.field({ type: ToolBudgetInput }),
    reason: t.string(),
  }),
});

export const PolicyContextInput = builder.inputType('PolicyContextInput', {
  fields: (t) => ({ userId: t.string(), profileId: t.string(), planNodeId: t.string() }),
});

builder.queryFields((t) => ({
  policyRules: t.field({
    type: [PolicyRuleType],
    authScopes: scopes.people,
    args: { layer: t.arg({ type: PolicyLayerEnum }), scopeId: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.policy.list(args),
  }),
  effectiveTools: t.field({
    type: [EffectiveToolType],
    description: 'Which tools a model would see and call in this context, and why.',
    authScopes: scopes.readers,
    args: { context: t.arg({ type: PolicyContextInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.policy.effectiveTools(args.context),
  }),
}));

builder.mutationFields((t) => ({
  setPolicyRule: t.field({
    type: PolicyRuleType,
    description:
      'Creates a rule, or replaces the rule with the given id. Admins; approvers on their own USER layer.',
    authScopes: scopes.deciders,
    args: {
      input: t.arg({ type: PolicyRuleInput, required: true, validate: { schema: policyRuleInputSchema } }),
    },
    resolve: (_root, args, ctx) => ctx.services.policy.set(args.input, ctx.principal!),
  }),
  removePolicyRule: t.boolean({
    authScopes: scopes.deciders,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.policy.remove(String(args.id), ctx.principal!),
  }),
}));
