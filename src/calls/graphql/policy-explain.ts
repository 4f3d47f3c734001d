import { z } from 'zod';
import { policyContextProblem } from '../../core/access.js';
import { forbidden } from '../../core/errors.js';
import type { ConditionResult } from '../../core/policy.js';
import { builder, scopes } from '../../graphql/builder.js';
import { MAX_ARGUMENT_BYTES } from '../lifecycle/call-records.js';
import { explainOutcomes, type PolicyExplanation } from '../policy-service.js';
import {
  PolicyConditionType,
  PolicyContextInput,
  PolicyEffectEnum,
  PolicyLayerEnum,
  PolicyRuleType,
} from './policy.js';

const ExplainOutcomeEnum = builder.enumType('PolicyExplainOutcome', {
  description:
    'What requestToolCall would make of the call: ACCEPTED (runs at once), AWAITING_APPROVAL, or why it is refused (UNKNOWN_TOOL, POLICY_DENIED, INVALID_ARGUMENTS, BUDGET_EXHAUSTED, UNAVAILABLE).',
  values: explainOutcomes,
});

const ConditionResultType = builder.objectRef<ConditionResult>('PolicyConditionResult').implement({
  description: 'One condition of a rule and whether it held on the arguments.',
  fields: (t) => ({
    ruleId: t.id({ description: 'The rule it belongs to.', resolve: (result) => result.rule.id }),
    layer: t.field({
      description: "The rule's layer.",
      type: PolicyLayerEnum,
      resolve: (result) => result.rule.layer,
    }),
    condition: t.expose('condition', { description: 'The condition.', type: PolicyConditionType }),
    holds: t.exposeBoolean('holds', { description: 'Whether it held on these arguments.' }),
  }),
});

const ArgumentIssueType = builder
  .objectRef<PolicyExplanation['issues'][number]>('PolicyExplainArgumentIssue')
  .implement({
    description: "How the arguments fail the tool's input schema.",
    fields: (t) => ({
      path: t.exposeString('path', { description: 'The JSON pointer of the failing value, or `(root)`.' }),
      message: t.exposeString('message', { description: 'What is wrong with it.' }),
    }),
  });

const PolicyExplanationType = builder.objectRef<PolicyExplanation>('PolicyExplanation').implement({
  description:
    'What would happen to one call of a model in a context, and which rule decides; nothing is recorded.',
  fields: (t) => ({
    tool: t.exposeString('tool', { description: 'The tool name asked about.' }),
    outcome: t.expose('outcome', {
      description: 'What the call would come to, decided as requestToolCall decides it.',
      type: ExplainOutcomeEnum,
    }),
    effect: t.field({
      description:
        'DENY: policy does not permit the call (or no such tool); ASK: it waits for an approver; ALLOW: policy lets it run at once.',
      type: PolicyEffectEnum,
      resolve: ({ view }) => (!view?.permitted ? 'DENY' : view.approvalRequired ? 'ASK' : 'ALLOW'),
    }),
    approvalRequired: t.boolean({
      description: 'The call would wait for an approver.',
      resolve: ({ view }) => view?.permitted === true && view.approvalRequired,
    }),
    reason: t.string({
      description:
        'Names the deciding rule and the conditions that decided, as the call\'s policyReason would; "unknown tool" for a name no tool has.',
      resolve: ({ view }) => view?.reason ?? 'unknown tool',
    }),
    decidingRule: t.field({
      description:
        'The rule whose effect decides (the deny, the ASK, or the allow the reason names); null when no rule does (disabled tool, its own permission, a plan node list, no allowing rule).',
      type: PolicyRuleType,
      nullable: true,
      resolve: ({ view }) => view?.decidingRule ?? null,
    }),
    decidingConditions: t.field({
      description:
        "The conditions that decided: the deciding rule's, and the first failing one of each rule that would have changed the outcome had it held. Empty when no condition mattered, and when the arguments fail the schema (conditions are tested only on valid arguments).",
      type: [ConditionResultType],
      resolve: ({ view }) => view?.decidingConditions ?? [],
    }),
    argumentIssues: t.field({
      description: "How the arguments fail the tool's input schema; empty when they pass.",
      type: [ArgumentIssueType],
      resolve: ({ issues }) => issues,
    }),
  }),
});

const argumentsSchema = z
  .record(z.string(), z.unknown())
  .refine((args) => Buffer.byteLength(JSON.stringify(args)) <= MAX_ARGUMENT_BYTES, {
    message: 'must be at most 256 KiB of JSON',
  });

builder.queryFields((t) => ({
  policyExplain: t.field({
    type: PolicyExplanationType,
    description:
      "What would happen to a model's call of this tool with these arguments in this context, and which rule and condition decide, without making the call (no run: nothing counts against a budget). Every role but EXTENSION; a user the token is not bound to: FORBIDDEN.",
    authScopes: scopes.readers,
    args: {
      context: t.arg({
        description: 'The user, profile and plan node to resolve for.',
        type: PolicyContextInput,
        required: true,
      }),
      tool: t.arg.string({
        description: 'The tool name, as the model would call it.',
        required: true,
        validate: { schema: z.string().min(1).max(256) },
      }),
      arguments: t.arg({
        description: 'The arguments, a JSON object, as the model would send them.',
        type: 'JSON',
        required: true,
        validate: { schema: argumentsSchema },
      }),
    },
    resolve: (_root, args, ctx) => {
      const problem = policyContextProblem(ctx.principal!, args.context);
      if (problem) throw forbidden(problem);
      return ctx.services.policy.explain(args.context, args.tool, args.arguments as Record<string, unknown>);
    },
  }),
}));
