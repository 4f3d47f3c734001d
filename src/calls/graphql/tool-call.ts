import { resolveCursorConnection } from '@pothos/plugin-relay';
import { summarize } from '../../core/canonical-json.js';
import { toolCallStatuses } from '../../core/tool-call.js';
import type { DecisionRecord } from '../../db/schema.js';
import { builder, scopes } from '../../graphql/builder.js';
import type { GraphQLContext } from '../../graphql/context.js';
import { decodeCursor, encodeCursor } from '../../graphql/keyset.js';
import { JournalEventType } from '../../journal/graphql.js';
import { requestToolCallInputSchema, type ToolCallRow } from '../tool-call-service.js';
import { RunType } from './run.js';
import { ToolAnnotationsType, ToolSourceEnum } from './tool.js';
import { ToolErrorType, ToolResultType } from './tool-result.js';

export const ToolCallStatusEnum = builder.enumType('ToolCallStatus', { values: toolCallStatuses });

const ApprovalDecisionType = builder.objectRef<DecisionRecord>('ApprovalDecision').implement({
  fields: (t) => ({
    approved: t.exposeBoolean('approved'),
    decidedBy: t.exposeString('decidedBy'),
    reason: t.exposeString('reason', {
      nullable: true,
      description: '`expired` when nobody decided in time.',
    }),
    decidedAt: t.field({ type: 'DateTime', resolve: (d) => new Date(d.decidedAt) }),
    argumentsHash: t.exposeString('argumentsHash', {
      description: 'The arguments this decision was made on.',
    }),
  }),
});

/** What an approval UI shows (seed §10): tool, arguments summary, side effects, source, policy reason. */
const ApprovalRequestType = builder.objectRef<ToolCallRow>('ApprovalRequest').implement({
  fields: (t) => ({
    toolName: t.exposeString('name'),
    title: t.string({ resolve: (c) => c.tool?.title ?? c.name }),
    displayName: t.string({ nullable: true, resolve: (c) => c.tool?.displayName ?? null }),
    argumentsSummary: t.string({ resolve: (c) => summarize(c.arguments) }),
    message: t.string({
      nullable: true,
      description:
        "The tool's approval message template filled with these arguments. Written by the tool's author (an extension), so it is shown next to argumentsSummary, never instead of it.",
      resolve: (c) => c.tool?.approvalMessage ?? null,
    }),
    argumentsHash: t.exposeString('argumentsHash', {
      description: 'Pass it back with the decision to bind it to these arguments.',
    }),
    annotations: t.field({
      type: ToolAnnotationsType,
      nullable: true,
      resolve: (c) => c.tool?.annotations ?? null,
    }),
    source: t.field({
      type: ToolSourceEnum,
      nullable: true,
      resolve: (c) => (c.tool?.source as never) ?? null,
    }),
    policyReason: t.exposeString('policyReason', { nullable: true }),
    expiresAt: t.expose('approvalExpiresAt', { type: 'DateTime', nullable: true }),
  }),
});

export const ToolCallType = builder.objectRef<ToolCallRow>('ToolCall').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    run: t.field({
      type: RunType,
      resolve: async (call, _args, ctx) => (await ctx.services.runs.get(call.runId))!,
    }),
    name: t.exposeString('name'),
    arguments: t.expose('arguments', { type: 'JSON' }),
    argumentsHash: t.exposeString('argumentsHash'),
    providerCallId: t.exposeString('providerCallId', { nullable: true }),
    providerMetadata: t.expose('providerMetadata', { type: 'JSON', nullable: true }),
    idempotencyKey: t.exposeString('idempotencyKey', { nullable: true }),
    status: t.expose('status', { type: ToolCallStatusEnum }),
    approvalRequired: t.exposeBoolean('approvalRequired'),
    policyReason: t.exposeString('policyReason', { nullable: true }),
    approvalRequest: t.field({
      type: ApprovalRequestType,
      nullable: true,
      resolve: (call) => (call.approvalRequired ? call : null),
    }),
    decision: t.expose('decision', { type: ApprovalDecisionType, nullable: true }),
    result: t.expose('result', { type: ToolResultType, nullable: true }),
    error: t.expose('error', { type: ToolErrorType, nullable: true }),
    attempts: t.exposeInt('attempts'),
    events: t.field({
      type: [JournalEventType],
      resolve: (call, _args, ctx) => ctx.services.journal.read({ callId: call.id, limit: 1000 }),
    }),
    requestedBy: t.exposeString('requestedBy'),
    requestedAt: t.expose('requestedAt', { type: 'DateTime' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
  }),
});

function callConnection(
  ctx: GraphQLContext,
  args: object,
  filter: { runId?: string; status?: ToolCallRow['status'] },
) {
  return resolveCursorConnection<Promise<ToolCallRow[]>>(
    {
      args: args as never,
      toCursor: (c) => encodeCursor(c.requestedAt, c.id),
      defaultSize: 50,
      maxSize: 200,
    },
    ({ after, before, limit, inverted }) =>
      ctx.services.calls.page({
        ...filter,
        after: after ? decodeCursor(after) : null,
        before: before ? decodeCursor(before) : null,
        limit,
        inverted,
      }),
  );
}

builder.objectField(RunType, 'toolCalls', (t) =>
  t.connection({
    type: ToolCallType,
    args: { status: t.arg({ type: ToolCallStatusEnum }) },
    resolve: (run, args, ctx) =>
      callConnection(ctx, args, { runId: run.id, status: args.status ?? undefined }),
  }),
);

const RequestToolCallInput = builder.inputType('RequestToolCallInput', {
  fields: (t) => ({
    runId: t.id({ required: true }),
    name: t.string({ required: true }),
    arguments: t.field({
      type: 'JSON',
      description: 'A JSON object; validated against the tool input schema.',
    }),
    providerCallId: t.string({ description: 'The provider-issued call id; a repeat returns the same call.' }),
    providerMetadata: t.field({ type: 'JSON' }),
    idempotencyKey: t.string({
      description: 'A repeat with the same arguments returns the same call; other arguments: CONFLICT.',
    }),
  }),
});

builder.queryFields((t) => ({
  toolCall: t.field({
    type: ToolCallType,
    nullable: true,
    authScopes: scopes.readers,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.calls.get(String(args.id), ctx.principal!),
  }),
  pendingApprovals: t.connection({
    type: ToolCallType,
    description: 'Calls awaiting a decision, oldest first.',
    authScopes: scopes.people,
    resolve: (_root, args, ctx) => callConnection(ctx, args, { status: 'AWAITING_APPROVAL' }),
  }),
}));

builder.mutationFields((t) => ({
  requestToolCall: t.field({
    type: ToolCallType,
    description:
      'Requests a call. Calls that need no approval run before this returns; others wait in the approval queue.',
    authScopes: scopes.agents,
    args: {
      input: t.arg({
        type: RequestToolCallInput,
        required: true,
        validate: { schema: requestToolCallInputSchema },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.calls.request(args.input, ctx.principal!),
  }),
  approveToolCall: t.field({
    type: ToolCallType,
    description:
      'Exactly one decision counts; a second gets CONFLICT. Pass argumentsHash to bind it to what you saw.',
    authScopes: scopes.deciders,
    args: { id: t.arg.id({ required: true }), reason: t.arg.string(), argumentsHash: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.calls.approve(String(args.id), args, ctx.principal!),
  }),
  denyToolCall: t.field({
    type: ToolCallType,
    authScopes: scopes.deciders,
    args: { id: t.arg.id({ required: true }), reason: t.arg.string(), argumentsHash: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.calls.deny(String(args.id), args, ctx.principal!),
  }),
}));

builder.subscriptionFields((t) => ({
  approvalQueue: t.field({
    type: ToolCallType,
    description:
      'The calls awaiting approval now, then every call that enters or leaves the queue, as it is then.',
    authScopes: scopes.people,
    subscribe: (_root, _args, ctx) => ctx.services.journal.approvalQueue(),
    resolve: (call: ToolCallRow) => call,
  }),
}));
