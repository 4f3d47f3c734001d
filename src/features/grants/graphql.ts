import { GrantScopeEnum } from '../../calls/graphql/grant-scope.js';
import { PolicyConditionInput, PolicyConditionType, PolicyLayerEnum } from '../../calls/graphql/policy.js';
import { ToolCallType } from '../../calls/graphql/tool-call.js';
import { builder, scopes } from '../../graphql/builder.js';
import type { GrantPlan } from './rules/grant-plan.js';
import type { GrantRow } from './tables.js';

const GrantPreviewType = builder.objectRef<GrantPlan>('GrantPreview').implement({
  description:
    'What approving a call with a scope would grant, worked out exactly as the approval saves it: show it to the person before they approve.',
  fields: (t) => ({
    scope: t.expose('scope', { description: 'The scope asked about.', type: GrantScopeEnum }),
    toolName: t.exposeString('toolName', { description: 'The tool the grant covers (the call’s tool).' }),
    conditions: t.expose('conditions', {
      description: 'The grant covers only calls whose arguments match all of these; empty for every call.',
      type: [PolicyConditionType],
    }),
    layer: t.expose('layer', {
      description:
        'ALWAYS: the policy layer the rule is saved on (USER, or PROFILE for admins); null otherwise.',
      type: PolicyLayerEnum,
      nullable: true,
    }),
    userId: t.exposeID('userId', {
      description:
        'The user the grant is for (the run’s user); null for a profile rule or a run without a user.',
      nullable: true,
    }),
    profileId: t.exposeID('profileId', { description: 'ALWAYS on a profile: the profile.', nullable: true }),
    runId: t.exposeID('runId', { description: 'RUN: the run it covers; null otherwise.', nullable: true }),
    rule: t.expose('rule', {
      description:
        'ALWAYS: the exact setPolicyRule input that approving saves (ALLOW, waiving the default approval gates); null for ONCE and RUN.',
      type: 'JSON',
      nullable: true,
    }),
    summary: t.exposeString('summary', { description: 'The grant in one or two sentences, for the person.' }),
  }),
});

const GrantType = builder.objectRef<GrantRow>('Grant').implement({
  description: 'A standing approval a person made when approving a call (scope RUN or ALWAYS).',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The grant id; pass it to revokeGrant.' }),
    scope: t.field({ description: 'RUN or ALWAYS.', type: GrantScopeEnum, resolve: (g) => g.scope }),
    toolName: t.exposeString('toolName', { description: 'The tool it covers.' }),
    conditions: t.expose('conditions', {
      description: 'It covers only calls whose arguments match all of these; empty for every call.',
      type: [PolicyConditionType],
    }),
    runId: t.exposeID('runId', { description: 'RUN: the run it covers.', nullable: true }),
    userId: t.exposeID('userId', {
      description: 'The user it is for: the run’s user, or the USER layer of an ALWAYS rule.',
      nullable: true,
    }),
    profileId: t.exposeID('profileId', { description: 'ALWAYS on a profile: the profile.', nullable: true }),
    ruleId: t.exposeID('ruleId', {
      description: 'ALWAYS: the policy rule it saved; null for RUN, and once the rule is removed.',
      nullable: true,
    }),
    createdBy: t.exposeString('createdBy', { description: 'The actor who granted it.' }),
    createdAt: t.expose('createdAt', { description: 'When it was granted.', type: 'DateTime' }),
    revokedAt: t.expose('revokedAt', {
      description: 'When it was revoked; null while it stands.',
      type: 'DateTime',
      nullable: true,
    }),
    revokedBy: t.exposeString('revokedBy', { description: 'Who revoked it.', nullable: true }),
    sourceCall: t.field({
      description: 'The call whose approval made it; null when this token may not read it.',
      type: ToolCallType,
      nullable: true,
      resolve: (g, _args, ctx) =>
        g.sourceCallId ? ctx.services.calls.get(g.sourceCallId, ctx.principal!) : null,
    }),
  }),
});

builder.queryFields((t) => ({
  grantPreview: t.field({
    description:
      'What approveToolCall with this scope (and conditions, and for admins a profile) would grant on this call, without deciding anything: the rule an ALWAYS grant saves is exactly `rule`. A call this token may not see: NOT_FOUND; a grant it may not make: FORBIDDEN; bad conditions: BAD_USER_INPUT. ADMIN and APPROVER.',
    type: GrantPreviewType,
    authScopes: scopes.deciders,
    args: {
      callId: t.arg.id({ description: 'The call to approve.', required: true }),
      scope: t.arg({ description: 'The scope to preview.', type: GrantScopeEnum, required: true }),
      conditions: t.arg({
        description: 'RUN and ALWAYS: narrow the grant to calls whose arguments match all of these.',
        type: [PolicyConditionInput],
      }),
      profileId: t.arg.id({ description: 'ALWAYS, admins only: the profile to save the rule on.' }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.grants.preview(
        String(args.callId),
        { scope: args.scope, conditions: args.conditions, profileId: args.profileId },
        ctx.principal!,
      ),
  }),
  grants: t.field({
    description:
      'Standing grants, newest first (at most 500): those of the users this token is bound to, and profile grants. A run this token may not read: NOT_FOUND; a user it is not bound to: FORBIDDEN. ADMIN, APPROVER and VIEWER.',
    type: [GrantType],
    authScopes: scopes.people,
    args: {
      runId: t.arg.id({ description: 'Only the RUN grants of this run.' }),
      userId: t.arg.id({ description: 'Only the grants for this user.' }),
      includeRevoked: t.arg.boolean({ description: 'Revoked grants too (default false).' }),
    },
    resolve: (_root, args, ctx) => ctx.services.grants.list(args, ctx.principal!),
  }),
}));

builder.mutationFields((t) => ({
  revokeGrant: t.field({
    description:
      'Revokes a grant: the next matching call asks again; an ALWAYS grant’s policy rule is removed in the same transaction. Already revoked: CONFLICT; not visible: NOT_FOUND; a profile grant for a non-admin, or another user’s: FORBIDDEN. ADMIN and APPROVER.',
    type: GrantType,
    authScopes: scopes.deciders,
    args: { id: t.arg.id({ description: 'The grant.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.grants.revoke(String(args.id), ctx.principal!),
  }),
}));
