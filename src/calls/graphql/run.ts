import { resolveCursorConnection } from '@pothos/plugin-relay';
import type { EffectiveTool } from '../../core/policy.js';
import { deniedToolStrategies, runStatuses } from '../../core/run.js';
import { builder, scopes } from '../../graphql/builder.js';
import { decodeCursor, encodeCursor } from '../../graphql/keyset.js';
import { createRunInputSchema, type RunRow } from '../run-service.js';
import { EffectiveToolType } from './policy.js';
import { ToolErrorType } from './tool-result.js';

const RunStatusEnum = builder.enumType('RunStatus', {
  description: 'RUNNING until the run is completed, fails (see `failure`) or is cancelled.',
  values: runStatuses,
});
const DeniedToolStrategyEnum = builder.enumType('DeniedToolStrategy', {
  values: deniedToolStrategies,
  description:
    'What a call to a tool that is not callable does: fail the run, or give the model a denied result.',
});

export const RunType = builder.objectRef<RunRow>('Run');

const CreateRunInput = builder.inputType('CreateRunInput', {
  description: 'A run to start: who it is for, what it may touch, and its limits.',
  fields: (t) => ({
    userId: t.string({ description: 'The person the run acts for (USER policy layer).' }),
    profileId: t.string({
      description: 'The agent profile (PROFILE policy layer; it also narrows workspace roots).',
    }),
    planNodeId: t.string({ description: 'The plan step (PLAN_NODE policy layer).' }),
    chatId: t.string({ description: 'The imported chat whose history and world info the context uses.' }),
    workspaceId: t.string({
      description: 'The workspace its workspace tools use (created on first use; runs may share one).',
    }),
    deniedToolStrategy: t.field({ type: DeniedToolStrategyEnum, description: 'Default FAIL_RUN.' }),
    maxCalls: t.int({ description: 'Calls the whole run may make.' }),
    maxCallsPerTool: t.int({ description: 'Calls the run may make to any one tool.' }),
  }),
});

builder.queryFields((t) => ({
  run: t.field({
    description: 'One run; null when there is none or an agent did not create it. Every role but EXTENSION.',
    type: RunType,
    nullable: true,
    authScopes: scopes.readers,
    args: { id: t.arg.id({ description: 'The run id.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.runs.get(String(args.id), ctx.principal!),
  }),
  runs: t.connection({
    type: RunType,
    description: 'Newest first. Agents see the runs their token created. Every role but EXTENSION.',
    authScopes: scopes.readers,
    args: { status: t.arg({ description: 'Only runs in this status.', type: RunStatusEnum }) },
    resolve: (_root, args, ctx) =>
      resolveCursorConnection<Promise<RunRow[]>>(
        { args, toCursor: (run) => encodeCursor(run.createdAt, run.id), defaultSize: 50, maxSize: 200 },
        ({ after, before, limit, inverted }) =>
          ctx.services.runs.page(ctx.principal!, {
            status: args.status,
            after: after ? decodeCursor(after) : null,
            before: before ? decodeCursor(before) : null,
            limit,
            inverted,
          }),
      ),
  }),
}));

builder.mutationFields((t) => ({
  createRun: t.field({
    description: 'Starts a run, owned by the calling token. ADMIN and AGENT.',
    type: RunType,
    authScopes: scopes.agents,
    args: {
      input: t.arg({
        description: 'The run.',
        type: CreateRunInput,
        required: true,
        validate: { schema: createRunInputSchema },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.runs.create(args.input, ctx.principal!),
  }),
  cancelRun: t.field({
    type: RunType,
    description: 'Stops a run; its pending and running calls are cancelled. ADMIN, AGENT and APPROVER.',
    authScopes: { ...scopes.agents, approver: true },
    args: { id: t.arg.id({ description: 'The run to cancel.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.runs.cancel(String(args.id), ctx.principal!),
  }),
  completeRun: t.field({
    type: RunType,
    description: 'Ends a run successfully; calls still pending are cancelled. ADMIN and AGENT.',
    authScopes: scopes.agents,
    args: { id: t.arg.id({ description: 'The run to complete.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.runs.complete(String(args.id), ctx.principal!),
  }),
}));

RunType.implement({
  description: 'One agent session: its calls are governed by the policy of its user, profile and plan node.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The run id.' }),
    status: t.expose('status', { description: 'Where the run is in its life.', type: RunStatusEnum }),
    userId: t.exposeString('userId', {
      description: 'The person the run acts for; null when none was named.',
      nullable: true,
    }),
    profileId: t.exposeString('profileId', {
      description: 'The agent profile; null when none was named.',
      nullable: true,
    }),
    planNodeId: t.exposeString('planNodeId', {
      description: 'The plan step; null when none was named.',
      nullable: true,
    }),
    chatId: t.exposeString('chatId', {
      description: 'The imported chat the context reads; null when none was named.',
      nullable: true,
    }),
    workspaceId: t.exposeString('workspaceId', {
      description: 'The workspace the workspace tools use; null when none was named.',
      nullable: true,
    }),
    deniedToolStrategy: t.expose('deniedToolStrategy', {
      description: 'What a call to a tool that is not callable does.',
      type: DeniedToolStrategyEnum,
    }),
    maxCalls: t.exposeInt('maxCalls', {
      description: 'Calls the whole run may make; null for no limit.',
      nullable: true,
    }),
    maxCallsPerTool: t.exposeInt('maxCallsPerTool', {
      description: 'Calls the run may make to any one tool; null for no limit.',
      nullable: true,
    }),
    failure: t.expose('failure', {
      description: 'Why the run failed; null unless it is FAILED.',
      type: ToolErrorType,
      nullable: true,
    }),
    createdBy: t.exposeString('createdBy', {
      description: 'The actor that created it, `<role>:<token name>`.',
    }),
    createdAt: t.expose('createdAt', { description: 'When it was created.', type: 'DateTime' }),
    finishedAt: t.expose('finishedAt', {
      description: 'When it completed, failed or was cancelled; null while RUNNING.',
      type: 'DateTime',
      nullable: true,
    }),
    effectiveTools: t.field({
      type: [EffectiveToolType],
      description: 'The policy view of this run, with what is left of each budget.',
      resolve: async (run, _args, ctx): Promise<EffectiveTool[]> => {
        const usage = await ctx.services.runs.usage(ctx.services.database.db, run);
        return ctx.services.policy.effectiveTools(
          { userId: run.userId, profileId: run.profileId, planNodeId: run.planNodeId },
          usage,
        );
      },
    }),
  }),
});
