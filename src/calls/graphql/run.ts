import { resolveCursorConnection } from '@pothos/plugin-relay';
import { actorOf } from '../../core/auth.js';
import type { EffectiveTool } from '../../core/policy.js';
import { deniedToolStrategies, runStatuses } from '../../core/run.js';
import { builder, scopes } from '../../graphql/builder.js';
import { decodeCursor, encodeCursor } from '../../graphql/keyset.js';
import { profileRunDefaultsInputSchema } from '../run-defaults-service.js';
import { createRunInputSchema } from '../run-service.js';
import type { ProfileRunDefaultsRow, RunRow } from '../tables.js';
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

export const CreateRunInput = builder.inputType('CreateRunInput', {
  description: 'A run to start: who it is for, what it may touch, and its limits.',
  fields: (t) => ({
    userId: t.string({ description: 'The person the run acts for (USER policy layer).' }),
    profileId: t.string({
      description: 'The agent profile (PROFILE policy layer; it also narrows workspace roots).',
    }),
    planNodeId: t.string({ description: 'The plan step (PLAN_NODE policy layer).' }),
    chatId: t.string({
      description:
        "The imported chat whose history and world info the context uses; it must be the run's user's (NOT_FOUND when there is none, FORBIDDEN when it is another's).",
    }),
    workspaceId: t.string({
      description:
        "The workspace its workspace tools use: created for the run's user on first use; runs of that user may share it, a workspace of another user is FORBIDDEN.",
    }),
    deniedToolStrategy: t.field({
      type: DeniedToolStrategyEnum,
      description:
        "Default: the profile's run defaults, else FAIL_RUN. An agent may not ask RETURN_DENIED_RESULT where the defaults say FAIL_RUN.",
    }),
    maxCalls: t.int({
      description:
        "Calls the whole run may make. Default: the profile's run defaults (else no limit); an agent may not ask more than they allow.",
    }),
    maxCallsPerTool: t.int({
      description:
        "Calls the run may make to any one tool. Default: the profile's run defaults (else no limit); an agent may not ask more than they allow.",
    }),
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
    description: 'Starts a run, owned by the calling token. ADMIN, HOST and AGENT.',
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
    description: 'Stops a run; its pending and running calls are cancelled. ADMIN, HOST, AGENT and APPROVER.',
    authScopes: { ...scopes.agents, approver: true },
    args: { id: t.arg.id({ description: 'The run to cancel.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.runs.cancel(String(args.id), ctx.principal!),
  }),
  completeRun: t.field({
    type: RunType,
    description: 'Ends a run successfully; calls still pending are cancelled. ADMIN, HOST and AGENT.',
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
    createdByTokenId: t.exposeID('createdByToken', {
      description:
        'The token that created it (`userId` says for whom); null for runs from before tokens were recorded.',
      nullable: true,
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

const ProfileRunDefaultsType = builder.objectRef<ProfileRunDefaultsRow>('ProfileRunDefaults').implement({
  description:
    "What an admin configured for a profile's runs: the limits a run gets when its creator names none, and the loosest an agent may ask for.",
  fields: (t) => ({
    profileId: t.exposeString('profileId', {
      description:
        'The profile; `*` for every profile without its own defaults (and runs without a profile).',
    }),
    deniedToolStrategy: t.expose('deniedToolStrategy', {
      description:
        'The strategy runs get; FAIL_RUN also forbids agents from asking RETURN_DENIED_RESULT. Null: not configured.',
      type: DeniedToolStrategyEnum,
      nullable: true,
    }),
    maxCalls: t.exposeInt('maxCalls', {
      description: 'Calls a run may make at most; null: not configured.',
      nullable: true,
    }),
    maxCallsPerTool: t.exposeInt('maxCallsPerTool', {
      description: 'Calls a run may make to any one tool at most; null: not configured.',
      nullable: true,
    }),
    updatedBy: t.exposeString('updatedBy', { description: 'The actor that last set them.' }),
    updatedAt: t.expose('updatedAt', { description: 'When they were last set.', type: 'DateTime' }),
  }),
});

const ProfileRunDefaultsInput = builder.inputType('ProfileRunDefaultsInput', {
  description: "A profile's run defaults; a field left out configures nothing (the whole row is replaced).",
  fields: (t) => ({
    profileId: t.string({
      required: true,
      description: 'The profile; `*` for every profile without its own defaults.',
    }),
    deniedToolStrategy: t.field({ type: DeniedToolStrategyEnum, description: 'The strategy runs get.' }),
    maxCalls: t.int({ description: 'Calls a run may make at most.' }),
    maxCallsPerTool: t.int({ description: 'Calls a run may make to any one tool at most.' }),
  }),
});

builder.queryFields((t) => ({
  profileRunDefaults: t.field({
    type: [ProfileRunDefaultsType],
    description:
      "Every profile's run defaults, by profile id. ADMIN, HOST, APPROVER and VIEWER (agents learn a limit from the refusal that names it).",
    authScopes: { ...scopes.people, host: true },
    resolve: (_root, _args, ctx) => ctx.services.runDefaults.list(),
  }),
}));

builder.mutationFields((t) => ({
  setProfileRunDefaults: t.field({
    type: ProfileRunDefaultsType,
    description: "Sets a profile's run defaults, replacing what it had. ADMIN only.",
    authScopes: scopes.admin,
    args: {
      input: t.arg({
        description: 'The defaults.',
        type: ProfileRunDefaultsInput,
        required: true,
        validate: { schema: profileRunDefaultsInputSchema },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.runDefaults.set(args.input, actorOf(ctx.principal)),
  }),
  removeProfileRunDefaults: t.boolean({
    description:
      "Removes a profile's run defaults (its runs fall back to `*`'s); NOT_FOUND when it has none. ADMIN only.",
    authScopes: scopes.admin,
    args: { profileId: t.arg.string({ description: 'The profile, or `*`.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.runDefaults.remove(args.profileId),
  }),
}));
