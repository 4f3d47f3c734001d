import { resolveCursorConnection } from '@pothos/plugin-relay';
import type { EffectiveTool } from '../../core/policy.js';
import { builder, scopes } from '../../graphql/builder.js';
import { decodeCursor, encodeCursor } from '../../graphql/keyset.js';
import { createRunInputSchema, type RunRow, runStatuses } from '../run-service.js';
import { EffectiveToolType } from './policy.js';
import { ToolErrorType } from './tool-result.js';

export const RunStatusEnum = builder.enumType('RunStatus', { values: runStatuses });
const DeniedToolStrategyEnum = builder.enumType('DeniedToolStrategy', {
  values: ['FAIL_RUN', 'RETURN_DENIED_RESULT'] as const,
  description:
    'What a call to a tool that is not callable does: fail the run, or give the model a denied result.',
});

export const RunType = builder.objectRef<RunRow>('Run');

const CreateRunInput = builder.inputType('CreateRunInput', {
  fields: (t) => ({
    userId: t.string(),
    profileId: t.string(),
    planNodeId: t.string(),
    chatId: t.string(),
    workspaceId: t.string(),
    deniedToolStrategy: t.field({ type: DeniedToolStrategyEnum, description: 'Default FAIL_RUN.' }),
    maxCalls: t.int({ description: 'Calls the whole run may make.' }),
    maxCallsPerTool: t.int({ description: 'Calls the run may make to any one tool.' }),
  }),
});

builder.queryFields((t) => ({
  run: t.field({
    type: RunType,
    nullable: true,
    authScopes: scopes.readers,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.runs.get(String(args.id), ctx.principal!),
  }),
  runs: t.connection({
    type: RunType,
    description: 'Newest first. Agents see the runs their token created.',
    authScopes: scopes.readers,
    args: { status: t.arg({ type: RunStatusEnum }) },
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
    type: RunType,
    authScopes: scopes.agents,
    args: {
      input: t.arg({ type: CreateRunInput, required: true, validate: { schema: createRunInputSchema } }),
    },
    resolve: (_root, args, ctx) => ctx.services.runs.create(args.input, ctx.principal!),
  }),
  cancelRun: t.field({
    type: RunType,
    description: 'Stops a run; its pending and running calls are cancelled.',
    authScopes: { ...scopes.agents, approver: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.runs.cancel(String(args.id), ctx.principal!),
  }),
  completeRun: t.field({
    type: RunType,
    description: 'Ends a run successfully; calls still pending are cancelled.',
    authScopes: scopes.agents,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.runs.complete(String(args.id), ctx.principal!),
  }),
}));

RunType.implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    status: t.expose('status', { type: RunStatusEnum }),
    userId: t.exposeString('userId', { nullable: true }),
    profileId: t.exposeString('profileId', { nullable: true }),
    planNodeId: t.exposeString('planNodeId', { nullable: true }),
    chatId: t.exposeString('chatId', { nullable: true }),
    workspaceId: t.exposeString('workspaceId', { nullable: true }),
    deniedToolStrategy: t.expose('deniedToolStrategy', { type: DeniedToolStrategyEnum }),
    maxCalls: t.exposeInt('maxCalls', { nullable: true }),
    maxCallsPerTool: t.exposeInt('maxCallsPerTool', { nullable: true }),
    failure: t.expose('failure', { type: ToolErrorType, nullable: true }),
    createdBy: t.exposeString('createdBy'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
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
