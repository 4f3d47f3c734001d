import { mayReadRule, policyContextProblem } from '../../core/access.js';
import { forbidden } from '../../core/errors.js';
import type { EffectiveTool } from '../../core/policy.js';
import { conditionOperators, type PolicyCondition } from '../../core/policy-conditions.js';
import {
  type PolicyRule,
  policyEffects,
  policyLayers,
  policyRuleInputSchema,
} from '../../core/policy-rule.js';
import { builder, scopes } from '../../graphql/builder.js';
import { ToolBudgetInput, ToolBudgetType, ToolType } from './tool.js';

export const PolicyLayerEnum = builder.enumType('PolicyLayer', {
  description:
    'Where a rule applies: PLATFORM (everywhere), USER, PROFILE, PLAN_NODE (each scoped by its id) or SOURCE (scoped by a tool source).',
  values: policyLayers,
});
export const PolicyEffectEnum = builder.enumType('PolicyEffect', {
  description:
    'ALLOW makes a tool visible, DENY hides it (deny beats allow), ASK keeps it visible but gates each call by approval.',
  values: policyEffects,
});

const PolicyConditionOperatorEnum = builder.enumType('PolicyConditionOperator', {
  description:
    'How a condition tests the value its pointer finds: glob (`*` within a segment, `**` any depth, `?` one character), prefix, equals, in (one of a list), maxLength (characters of a string).',
  values: conditionOperators,
});

export const PolicyConditionType = builder.objectRef<PolicyCondition>('PolicyCondition').implement({
  description:
    'One condition of a rule on the arguments of a call; a missing field or a value of another type makes it false.',
  fields: (t) => ({
    pointer: t.exposeString('pointer', {
      description: 'The RFC 6901 JSON pointer to the argument it tests (`/path`).',
    }),
    path: t.exposeBoolean('path', {
      description:
        'The value is a workspace path, compared in its canonical form; a path the workspace path rules refuse matches nothing.',
    }),
    operator: t.expose('operator', { description: 'The test.', type: PolicyConditionOperatorEnum }),
    value: t.field({
      description:
        'The operand: a glob or prefix string, the value to equal, the list for `in`, or the length.',
      type: 'JSON',
      resolve: (condition) => condition.value,
    }),
  }),
});

export const PolicyRuleType = builder.objectRef<PolicyRule>('PolicyRule').implement({
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
    conditions: t.expose('conditions', {
      description:
        "The rule applies to a call only when all of these hold on its arguments; a granting rule whose conditions hold replaces its layer's unconditional grants. Empty: always applies.",
      type: [PolicyConditionType],
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
    conditional: t.exposeBoolean('conditional', {
      description:
        'Rules with conditions on the arguments could change this outcome: the fields show it with no condition holding (or, when that hides the tool, with the granting conditions holding); ask policyExplain about one call.',
    }),
  }),
});

export const PolicyConditionInput = builder.inputType('PolicyConditionInput', {
  description: 'A condition on the arguments of a call: a JSON pointer and exactly one operator.',
  fields: (t) => ({
    pointer: t.string({
      description:
        'An RFC 6901 JSON pointer into the arguments (`/path`, `/files/0/name`; `~1` is `/`, `~0` is `~`).',
      required: true,
    }),
    path: t.boolean({
      description:
        'Compare the value as a workspace path, in its canonical form (`./output//a.md` is `output/a.md`; `output/../secret` is `secret`); a value the workspace path rules refuse matches nothing. `equals` and `in` then take strings.',
    }),
    glob: t.string({
      description:
        'The string matches: `*` within a segment, `**` any number of segments, `?` one character. At most 1024 characters.',
    }),
    prefix: t.string({ description: 'The string starts with this. At most 1024 characters.' }),
    equals: t.field({
      description: 'The value is exactly this string, number or boolean (no conversion: 1 is not "1").',
      type: 'JSON',
    }),
    in: t.field({
      description: 'The value is one of these strings, numbers or booleans (1 to 100).',
      type: ['JSON'],
    }),
    maxLength: t.int({ description: 'The value is a string of at most this many characters.' }),
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
    conditions: t.field({
      description:
        'The rule applies to a call only when all of these hold on its validated arguments (at most 16).',
      type: [PolicyConditionInput],
    }),
  }),
});

export const PolicyContextInput = builder.inputType('PolicyContextInput', {
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
