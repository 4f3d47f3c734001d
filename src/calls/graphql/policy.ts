import { mayReadRule, policyContextProblem } from '../../core/access.js';
import { forbidden } from '../../core/errors.js';
import type { EffectiveTool } from '../../core/policy.js';
import {
  type PolicyRule,
  policyEffects,
  policyLayers,
  policyRuleInputSchema,
} from '../../core/policy-rule.js';
import { builder, scopes } from '../../graphql/builder.js';
import { ToolBudgetInput, ToolBudgetType, ToolType } from './tool.js';

const PolicyLayerEnum = builder.enumType('PolicyLayer', {
  description:
    'Where a rule applies: PLATFORM (everywhere), USER, PROFILE, PLAN_NODE (each scoped by its id) or SOURCE (scoped by a tool source).',
  values: policyLayers,
});
const PolicyEffectEnum = builder.enumType('PolicyEffect', {
  description:
    'ALLOW makes a tool visible, DENY hides it (deny beats allow), ASK keeps it visible but gates each call by approval.',
  values: policyEffects,
});

const PolicyRuleType = builder.objectRef<PolicyRule>('PolicyRule').implement({
  description: 'One rule of the layered policy; tools no rule allows are invisible.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description: 'The rule id; pass it to setPolicyRule to replace the rule, or to removePolicyRule.',
    }),
    layer: t.expose('layer', { description: 'Where the rule applies.', type: PolicyLayerEnum }),
    scopeId: t.exposeString('scopeId', {
      description: 'The user, profile, plan node or tool source the rule is scoped to; null on PLATFORM.',
      nullable: true,
    }),
    toolPattern: t.exposeString('toolPattern', {
      description: 'An exact tool name or a glob (`workspace.*`; `*` crosses dots).',
    }),
    effect: t.expose('effect', {
      description: 'What the rule does to matching tools.',
      type: PolicyEffectEnum,
    }),
    skipApproval: t.exposeBoolean('skipApproval', {
      description:
        'An ALLOW that also waives the default approval gates (MCP/extension source, destructive, costly).',
    }),
    budget: t.expose('budget', {
      description:
        'Limits the rule sets on matching tools (the tightest of all granting rules wins); null for none.',
      type: ToolBudgetType,
      nullable: true,
    }),
    reason: t.exposeString('reason', {
      description: 'Why the rule exists; quoted in the decision it makes.',
      nullable: true,
    }),
  }),
});

export const EffectiveToolType = builder.objectRef<EffectiveTool>('EffectiveTool').implement({
  description: 'How policy resolves one tool in a context.',
  fields: (t) => ({
    tool: t.expose('tool', { description: 'The tool.', type: ToolType }),
    visible: t.exposeBoolean('visible', {
      description:
        'A model in this context is offered the tool: policy permits it and it can run now (budget left, an executor for its source, its MCP server or extension connected somewhere).',
    }),
    callable: t.exposeBoolean('callable', {
      description:
        "A model's call would be accepted (possibly after approval). A call to a tool policy hides is a policy violation; one to a tool that cannot run now fails recoverably.",
    }),
    approvalRequired: t.exposeBoolean('approvalRequired', {
      description: 'Each call waits for an approver.',
    }),
    reason: t.exposeString('reason', {
      description:
        'Names the deciding rule; for a tool policy permits that cannot run now, starts with `cannot run now:` and says why.',
    }),
    budget: t.expose('budget', {
      description: "The tightest of the tool's and every granting rule's limits.",
      type: ToolBudgetType,
      nullable: true,
    }),
    remainingCalls: t.exposeInt('remainingCalls', {
      description: 'Calls left under every applicable limit; null when nothing limits the count.',
      nullable: true,
    }),
  }),
});

const PolicyRuleInput = builder.inputType('PolicyRuleInput', {
  description: 'A rule to create or replace.',
  fields: (t) => ({
    id: t.id({ description: 'Set to replace an existing rule.' }),
    layer: t.field({
      description: 'Where the rule applies; approvers may only use USER with their own userId.',
      type: PolicyLayerEnum,
      required: true,
    }),
    scopeId: t.string({
      description:
        'Required for USER, PROFILE and PLAN_NODE (their id) and SOURCE (a tool source); not allowed for PLATFORM.',
    }),
    toolPattern: t.string({
      description: 'An exact tool name or a glob (`workspace.*`; `*` crosses dots).',
      required: true,
    }),
    effect: t.field({
      description: 'What the rule does to matching tools.',
      type: PolicyEffectEnum,
      required: true,
    }),
    skipApproval: t.boolean({
      description:
        'Only with ALLOW: waives the default approval gates (MCP/extension source, destructive, open world, high cost).',
    }),
    budget: t.field({ description: 'Limits on matching tools.', type: ToolBudgetInput }),
    reason: t.string({ description: 'Why the rule exists; quoted in the decision it makes.' }),
  }),
});

const PolicyContextInput = builder.inputType('PolicyContextInput', {
  description: 'The context to resolve policy in; an unset id leaves out its layer.',
  fields: (t) => ({
    userId: t.string({ description: 'The USER layer to apply.' }),
    profileId: t.string({ description: 'The PROFILE layer to apply.' }),
    planNodeId: t.string({ description: 'The PLAN_NODE layer to apply.' }),
  }),
});

builder.queryFields((t) => ({
  policyRules: t.field({
    description:
      'Rules by layer, then creation time; USER rules only of the users the token is bound to. ADMIN, APPROVER and VIEWER.',
    type: [PolicyRuleType],
    authScopes: scopes.people,
    args: {
      layer: t.arg({ description: 'Only rules of this layer.', type: PolicyLayerEnum }),
      scopeId: t.arg.string({ description: 'Only rules with this scope id.' }),
    },
    resolve: async (_root, args, ctx) =>
      (await ctx.services.policy.list(args)).filter((rule) => mayReadRule(ctx.principal!, rule)),
  }),
  effectiveTools: t.field({
    type: [EffectiveToolType],
    description:
      'Which tools a model would see and call in this context, and why. Every role but EXTENSION; a user the token is not bound to: FORBIDDEN.',
    authScopes: scopes.readers,
    args: {
      context: t.arg({
        description: 'The user, profile and plan node to resolve for.',
        type: PolicyContextInput,
        required: true,
      }),
    },
    resolve: (_root, args, ctx) => {
      const problem = policyContextProblem(ctx.principal!, args.context);
      if (problem) throw forbidden(problem);
      return ctx.services.policy.effectiveTools(args.context);
    },
  }),
}));

builder.mutationFields((t) => ({
  setPolicyRule: t.field({
    type: PolicyRuleType,
    description:
      'Creates a rule, or replaces the rule with the given id. Admins; approvers on their own USER layer.',
    authScopes: scopes.deciders,
    args: {
      input: t.arg({
        description: 'The rule.',
        type: PolicyRuleInput,
        required: true,
        validate: { schema: policyRuleInputSchema },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.policy.set(args.input, ctx.principal!),
  }),
  removePolicyRule: t.boolean({
    description:
      'Deletes a rule; true when done, NOT_FOUND for an unknown id. Admins; approvers on their own USER layer.',
    authScopes: scopes.deciders,
    args: { id: t.arg.id({ description: 'The rule to delete.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.policy.remove(String(args.id), ctx.principal!),
  }),
}));
