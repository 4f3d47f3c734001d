import { builder, scopes } from '../../graphql/builder.js';
import {
  type ApprovalBatch,
  type BatchConflict,
  type BatchResult,
  batchVerdicts,
  decideApprovalBatchInputSchema,
} from '../batches.js';
import { RunType } from './run.js';
import { ToolCallStatusEnum, ToolCallType } from './tool-call.js';

const BatchVerdictEnum = builder.enumType('BatchVerdict', {
  description: 'APPROVE or DENY one call of a batch.',
  values: batchVerdicts,
});

const ApprovalBatchType = builder.objectRef<ApprovalBatch>('ApprovalBatch').implement({
  description: 'The calls of one model turn that needed a person’s approval, decided together or one by one.',
  fields: (t) => ({
    turnId: t.exposeID('turnId', { description: 'The model turn.' }),
    run: t.field({ description: 'The run the turn belongs to.', type: RunType, resolve: (b) => b.run }),
    calls: t.field({
      description:
        'Every call of the turn that needed approval, in the order the model made them (a replacement from an edit right after its EDITED call).',
      type: [ToolCallType],
      resolve: (b) => b.calls,
    }),
    pending: t.exposeInt('pending', { description: 'How many of them still await a decision.' }),
  }),
});

const BatchConflictType = builder.objectRef<BatchConflict>('BatchConflict').implement({
  description: 'A call of the batch that was not decided by this mutation, and why.',
  fields: (t) => ({
    callId: t.exposeID('callId', { description: 'The call.' }),
    status: t.field({
      description: 'Its status now (already decided by someone, for instance).',
      type: ToolCallStatusEnum,
      resolve: (c) => c.status,
    }),
    message: t.exposeString('message', { description: 'Why this decision did not count.' }),
  }),
});

const ApprovalBatchResultType = builder.objectRef<BatchResult>('ApprovalBatchResult').implement({
  description:
    'What decideApprovalBatch did: the batch as it is now, the calls it decided and those it could not.',
  fields: (t) => ({
    batch: t.field({
      description: 'The batch after the decisions.',
      type: ApprovalBatchType,
      resolve: (r) => r.batch,
    }),
    decided: t.field({
      description:
        'The calls this mutation decided (a quorum call it approved may still await more approvals).',
      type: [ToolCallType],
      resolve: (r) => r.decided,
    }),
    conflicts: t.field({
      description:
        'Calls decided meanwhile (or before), or that this token may not approve: their decision did not count.',
      type: [BatchConflictType],
      resolve: (r) => r.conflicts,
    }),
  }),
});

const BatchCallDecisionInput = builder.inputType('BatchCallDecisionInput', {
  description: 'One call’s own decision in a batch.',
  fields: (t) => ({
    id: t.id({ description: 'A call of the batch.', required: true }),
    verdict: t.field({ description: 'APPROVE or DENY.', type: BatchVerdictEnum, required: true }),
    argumentsHash: t.string({ description: 'Bind the decision to the arguments you saw.' }),
    reason: t.string({ description: 'Why; recorded with the decision.' }),
    feedback: t.string({ description: 'A denial’s text for the model (at most 4000 characters).' }),
    allowRetry: t.boolean({ description: 'A denial after which an identical call asks again.' }),
  }),
});

const DecideApprovalBatchInput = builder.inputType('DecideApprovalBatchInput', {
  description: 'Decisions for a turn’s calls: `all` for every pending call not listed in `decisions`.',
  fields: (t) => ({
    all: t.field({
      description: 'The verdict for every pending call of the turn not listed in decisions.',
      type: BatchVerdictEnum,
    }),
    reason: t.string({ description: 'The reason recorded with the `all` decisions.' }),
    feedback: t.string({ description: 'The feedback a denial by `all` gives the model.' }),
    decisions: t.field({ description: 'Calls with their own decision.', type: [BatchCallDecisionInput] }),
  }),
});

builder.queryFields((t) => ({
  approvalBatch: t.field({
    description:
      'The calls of one model turn that needed approval; null when the turn made no call of a run this token sees (approvers and viewers: runs of their users). ADMIN, APPROVER and VIEWER.',
    type: ApprovalBatchType,
    nullable: true,
    authScopes: scopes.people,
    args: { turnId: t.arg.id({ description: 'The model turn (ToolCall.turnId).', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.batches.get(String(args.turnId), ctx.principal!),
  }),
}));

builder.mutationFields((t) => ({
  decideApprovalBatch: t.field({
    description:
      'Decides the pending calls of one model turn in one mutation, each exactly once: every call goes through the same path as approveToolCall or denyToolCall (quorum and separation included), and a call decided meanwhile is a conflict entry while the others still get their decision. A call listed that is not of the turn is BAD_USER_INPUT and nothing is decided; a turn of a run outside this token’s users is NOT_FOUND. ADMIN and APPROVER.',
    type: ApprovalBatchResultType,
    authScopes: scopes.deciders,
    args: {
      turnId: t.arg.id({ description: 'The model turn.', required: true }),
      input: t.arg({
        description: 'The decisions.',
        type: DecideApprovalBatchInput,
        required: true,
        validate: { schema: decideApprovalBatchInputSchema },
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.batches.decide(String(args.turnId), args.input, ctx.principal!),
  }),
}));
