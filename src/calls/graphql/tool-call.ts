import { resolveCursorConnection } from '@pothos/plugin-relay';
import { summarize } from '../../core/canonical-json.js';
import { type DecidingPerson, type DecisionRecord, toolCallStatuses } from '../../core/tool-call.js';
import { builder, scopes } from '../../graphql/builder.js';
import { decodeCursor, encodeCursor } from '../../graphql/keyset.js';
import { JournalEventType } from '../../journal/graphql.js';
import type { DecideInput } from '../lifecycle/approvals.js';
import { requestToolCallInputSchema } from '../lifecycle/request.js';
import type { ToolCallRow } from '../tables.js';
import { GrantScopeEnum } from './grant-scope.js';
import { PolicyConditionInput } from './policy.js';
import { RunType } from './run.js';
import { ToolAnnotationsType, ToolSourceEnum } from './tool.js';
import { ToolErrorType, ToolResultType } from './tool-result.js';

export const ToolCallStatusEnum = builder.enumType('ToolCallStatus', {
  description:
    'REQUESTED, then AWAITING_APPROVAL (and APPROVED, DENIED, EXPIRED or EDITED) when a decision is needed, STARTED while it runs, and an end state: COMPLETED, FAILED, DENIED, EXPIRED (nobody decided in time; never a denial), EDITED (a person approved other arguments: the call in replacedBy ran instead and answers the model) or CANCELLED.',
  values: toolCallStatuses,
});

export const DecidingPersonType = builder.objectRef<DecidingPerson>('DecidingPerson').implement({
  description:
    "The person the company's IdP named on the request that made a decision or an edit (signed in with the IdP, or sending an IdP token).",
  fields: (t) => ({
    issuer: t.exposeString('issuer', { description: "The IdP (its token's `iss`)." }),
    subject: t.exposeString('subject', {
      description:
        "The person's stable id at that IdP (the `sub` claim): with issuer, who decided, for good.",
    }),
    displayName: t.exposeString('displayName', {
      description: 'The name people read: the name, preferred_username or email claim.',
    }),
  }),
});

export const ApprovalDecisionType = builder.objectRef<DecisionRecord>('ApprovalDecision').implement({
  description: 'The one decision that counted on a call (an EXPIRED call has none: nobody decided).',
  fields: (t) => ({
    approved: t.exposeBoolean('approved', { description: 'true for approve, false for deny.' }),
    decidedBy: t.exposeString('decidedBy', { description: 'The actor who decided.' }),
    person: t.field({
      type: DecidingPersonType,
      nullable: true,
      description: 'Who decided, as the IdP named them; null when the decision was made with an API token.',
      resolve: (d) => d.person ?? null,
    }),
    reason: t.exposeString('reason', { nullable: true, description: 'Why, as the decider gave it.' }),
    feedback: t.string({
      nullable: true,
      description: 'A denial\'s text for the model, which it read as "Denied by <decidedBy>: <feedback>".',
      resolve: (d) => d.feedback ?? null,
    }),
    allowRetry: t.boolean({
      description:
        'A denial after which an identical call of the run (same tool, same argumentsHash) asks again; when false it is refused at once with this decision.',
      resolve: (d) => d.allowRetry ?? false,
    }),
    repeatOf: t.id({
      nullable: true,
      description:
        'The call this decision was made on, when this call repeated an identical denied one and was refused without asking; null otherwise.',
      resolve: (d) => d.repeatOf ?? null,
    }),
    decidedAt: t.field({
      description: 'When it was decided.',
      type: 'DateTime',
      resolve: (d) => new Date(d.decidedAt),
    }),
    argumentsHash: t.exposeString('argumentsHash', {
      description: 'The arguments this decision was made on.',
    }),
  }),
});

/** What an approval UI shows (seed §10): tool, arguments summary, side effects, source, policy reason. */
export const ApprovalRequestType = builder.objectRef<ToolCallRow>('ApprovalRequest').implement({
  description: 'What an approval screen shows about a call waiting for a decision.',
  fields: (t) => ({
    toolName: t.exposeString('name', { description: 'The tool the call is for.' }),
    title: t.string({
      description: "The tool's title (its name when the tool is gone).",
      resolve: (c) => c.tool?.title ?? c.name,
    }),
    displayName: t.string({
      description: 'The name its author gave for approval screens; null when none.',
      nullable: true,
      resolve: (c) => c.tool?.displayName ?? null,
    }),
    argumentsSummary: t.string({
      description: 'The arguments as canonical JSON, cut after 500 characters.',
      resolve: (c) => summarize(c.arguments),
    }),
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
      description: "The tool's side-effect hints; null when the tool is gone.",
      type: ToolAnnotationsType,
      nullable: true,
      resolve: (c) => c.tool?.annotations ?? null,
    }),
    source: t.field({
      description: 'Where the tool comes from; null when the tool is gone.',
      type: ToolSourceEnum,
      nullable: true,
      resolve: (c) => (c.tool?.source as never) ?? null,
    }),
    policyReason: t.exposeString('policyReason', {
      description: 'Why policy asks for approval (the deciding rule or default gate).',
      nullable: true,
    }),
    expiresAt: t.expose('approvalExpiresAt', {
      description:
        'When the call ends EXPIRED if nobody decides (a `tool_call_expiring` event comes shortly before); null for no limit.',
      type: 'DateTime',
      nullable: true,
    }),
  }),
});

export const ToolCallType = builder.objectRef<ToolCallRow>('ToolCall').implement({
  description: 'One request by a model or runtime to run a tool, and everything that happened to it.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The call id.' }),
    run: t.field({
      description: 'The run it belongs to.',
      type: RunType,
      resolve: async (call, _args, ctx) => (await ctx.services.runs.get(call.runId))!,
    }),
    name: t.exposeString('name', { description: 'The tool called.' }),
    arguments: t.expose('arguments', { description: 'The arguments as requested.', type: 'JSON' }),
    argumentsHash: t.exposeString('argumentsHash', {
      description: 'sha256 of the canonical arguments; a decision can be bound to it.',
    }),
    providerCallId: t.exposeString('providerCallId', {
      description:
        "The model provider's call id (a reused one is stored as `<id>#t<turn>`); null when the runtime gave none.",
      nullable: true,
    }),
    providerMetadata: t.expose('providerMetadata', {
      description: 'Provider details kept with the call (such as a synthetic id); null when none.',
      type: 'JSON',
      nullable: true,
    }),
    idempotencyKey: t.exposeString('idempotencyKey', {
      description: "The runtime's key for retries; null when none.",
      nullable: true,
    }),
    status: t.expose('status', {
      description: 'Where the call is in its lifecycle.',
      type: ToolCallStatusEnum,
    }),
    approvalRequired: t.exposeBoolean('approvalRequired', {
      description: 'The call needs (or needed) a decision before it runs.',
    }),
    policyReason: t.exposeString('policyReason', {
      description: 'The policy decision behind it (the deciding rule); null when none was recorded.',
      nullable: true,
    }),
    approvalRequest: t.field({
      description: 'What an approver is shown; null for calls that need no approval.',
      type: ApprovalRequestType,
      nullable: true,
      resolve: (call) => (call.approvalRequired ? call : null),
    }),
    decision: t.expose('decision', {
      description: 'The decision made on it; null until decided, and for an EXPIRED call (nobody decided).',
      type: ApprovalDecisionType,
      nullable: true,
    }),
    result: t.expose('result', {
      description: 'What the model reads (errors included); null until the call ends.',
      type: ToolResultType,
      nullable: true,
    }),
    error: t.expose('error', {
      description: 'Why it failed, was denied, expired or was cancelled; null otherwise.',
      type: ToolErrorType,
      nullable: true,
    }),
    attempts: t.exposeInt('attempts', {
      description: 'How many times a worker has started it (more than one after a lost lease).',
    }),
    events: t.field({
      description: 'Its journal events in order (at most 1000).',
      type: [JournalEventType],
      resolve: (call, _args, ctx) => ctx.services.journal.eventsOfCall(call.id, 1000),
    }),
    requestedBy: t.exposeString('requestedBy', { description: 'The actor who requested it.' }),
    requestedAt: t.expose('requestedAt', { description: 'When it was requested.', type: 'DateTime' }),
    startedAt: t.expose('startedAt', {
      description: 'When a worker last started it; null if it never ran.',
      type: 'DateTime',
      nullable: true,
    }),
    finishedAt: t.expose('finishedAt', {
      description: 'When it ended; null while open.',
      type: 'DateTime',
      nullable: true,
    }),
  }),
});

/** The page a keyset connection asks for, cursors decoded. */
export type CallPage = {
  after: { at: Date; id: string } | null;
  before: { at: Date; id: string } | null;
  limit: number;
  inverted: boolean;
};

/** A connection of calls, oldest first, paged by (requestedAt, id) cursors; `load` reads one page. */
export function callConnection(args: object, load: (page: CallPage) => Promise<ToolCallRow[]>) {
  return resolveCursorConnection<Promise<ToolCallRow[]>>(
    {
      args: args as never,
      toCursor: (c) => encodeCursor(c.requestedAt, c.id),
      defaultSize: 50,
      maxSize: 200,
    },
    ({ after, before, limit, inverted }) =>
      load({
        after: after ? decodeCursor(after) : null,
        before: before ? decodeCursor(before) : null,
        limit,
        inverted,
      }),
  );
}

builder.objectField(RunType, 'toolCalls', (t) =>
  t.connection({
    description: 'The calls of this run, oldest first, 50 per page by default, at most 200.',
    type: ToolCallType,
    args: { status: t.arg({ description: 'Only calls in this status.', type: ToolCallStatusEnum }) },
    resolve: (run, args, ctx) =>
      callConnection(args, (page) =>
        ctx.services.calls.page({ ...page, runId: run.id, status: args.status ?? undefined }),
      ),
  }),
);

const RequestToolCallInput = builder.inputType('RequestToolCallInput', {
  description: 'A call to request in a run.',
  fields: (t) => ({
    runId: t.id({ description: 'The run (RUNNING, and created by this token for agents).', required: true }),
    name: t.string({ description: 'The tool to call.', required: true }),
    arguments: t.field({
      type: 'JSON',
      description: 'A JSON object; validated against the tool input schema.',
    }),
    providerCallId: t.string({ description: 'The provider-issued call id; a repeat returns the same call.' }),
    providerMetadata: t.field({ description: 'Provider details to keep with the call.', type: 'JSON' }),
    idempotencyKey: t.string({
      description: 'A repeat with the same arguments returns the same call; other arguments: CONFLICT.',
    }),
  }),
});

builder.queryFields((t) => ({
  toolCall: t.field({
    description:
      'One call; null when there is none or this token may not read its run (an agent: runs it created; approvers and viewers: runs of their users). Every role but EXTENSION.',
    type: ToolCallType,
    nullable: true,
    authScopes: scopes.readers,
    args: { id: t.arg.id({ description: 'The call id.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.calls.get(String(args.id), ctx.principal!),
  }),
}));

builder.mutationFields((t) => ({
  requestToolCall: t.field({
    type: ToolCallType,
    description:
      "Requests a call. Calls that need no approval run before this returns; others wait in the approval queue. A tool the run's policy does not permit is a policy violation (journaled `policy_violation`; the run's deniedToolStrategy decides); a tool that cannot run now fails recoverably (budget_exhausted, tool_unavailable, mcp_not_connected, extension_not_connected). AGENT and HOST call for the model, which never gets USER_ONLY tools; APPROVER (for runs of its users) and ADMIN call as a person, USER_ONLY tools included, journaled with that person as actor. ADMIN, HOST, AGENT and APPROVER.",
    authScopes: { ...scopes.agents, approver: true },
    args: {
      input: t.arg({
        description: 'The call.',
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
      'Exactly one decision counts; a second gets CONFLICT. Pass argumentsHash to bind it to what you saw. Under a quorum (budget approvals N) each approval is recorded and the N-th approves: the same approver twice is CONFLICT, and the run’s own user is FORBIDDEN when the budget forbids self-approval. With editedArguments the edited arguments are checked against the tool’s schema and by policy (an edit policy would not allow is BAD_USER_INPUT with extensions.policyReason, nothing recorded) and run as a new call (replacedBy) counting this approval; the call returned is this one, EDITED. With scope RUN or ALWAYS the approval also grants later calls (see grantPreview and grants); a grant this token may not make is FORBIDDEN and nothing is recorded. A call of a run outside the users this token is bound to is NOT_FOUND. ADMIN and APPROVER.',
    authScopes: scopes.deciders,
    args: {
      id: t.arg.id({ description: 'The call awaiting approval.', required: true }),
      reason: t.arg.string({ description: 'Why; recorded with the decision.' }),
      argumentsHash: t.arg.string({
        description:
          "The approvalRequest's argumentsHash; when the arguments differ, the decision is refused.",
      }),
      link: t.arg.string({
        description:
          'The one-time link token from a notification (`?link=`), when deciding through it: a forged or altered one (or one for another call) is BAD_USER_INPUT, an expired or used one CONFLICT (a call past its own deadline is CONFLICT with status EXPIRED, as without a link); then nothing is recorded.',
      }),
      editedArguments: t.arg({
        description:
          'Approve with edits: the arguments to run instead (a JSON object, at most 256 KiB). The same arguments as the call’s are a plain approval. Approved ONCE only.',
        type: 'JSON',
      }),
      scope: t.arg({
        description:
          'ONCE (default) this call only; RUN also later calls to this tool in this run; ALWAYS saves the policy rule grantPreview shows. Saved in the same transaction as the approval.',
        type: GrantScopeEnum,
      }),
      grantConditions: t.arg({
        description:
          'RUN and ALWAYS: the grant covers only calls whose arguments match all of these (the policy rule condition shape).',
        type: [PolicyConditionInput],
      }),
      grantProfileId: t.arg.id({
        description:
          'ALWAYS, admins only: save the rule on this PROFILE layer instead of the USER layer of the run’s user.',
      }),
    },
    // JSON operands arrive untyped; the service parses the whole decision with its schema.
    resolve: (_root, args, ctx) =>
      ctx.services.calls.approve(String(args.id), args as DecideInput, ctx.principal!),
  }),
  denyToolCall: t.field({
    description:
      'Denies a call awaiting approval; the model gets a denied result ("Denied by <you>: <feedback>" when you give feedback). An identical call later in the run (same tool, same argumentsHash) is then refused at once with this decision, unless allowRetry. Exactly one decision counts; a second gets CONFLICT. Feedback over 4000 characters is BAD_USER_INPUT. A call of a run outside the users this token is bound to is NOT_FOUND. ADMIN and APPROVER.',
    type: ToolCallType,
    authScopes: scopes.deciders,
    args: {
      id: t.arg.id({ description: 'The call awaiting approval.', required: true }),
      reason: t.arg.string({
        description: 'Why; recorded with the decision and shown to the model when there is no feedback.',
      }),
      argumentsHash: t.arg.string({
        description:
          "The approvalRequest's argumentsHash; when the arguments differ, the decision is refused.",
      }),
      link: t.arg.string({
        description:
          'The one-time link token from a notification (`?link=`), when deciding through it: a forged or altered one (or one for another call) is BAD_USER_INPUT, an expired or used one CONFLICT (a call past its own deadline is CONFLICT with status EXPIRED, as without a link); then nothing is recorded.',
      }),
      feedback: t.arg.string({
        description:
          'Text for the model (trimmed, at most 4000 characters): its answer becomes "Denied by <you>: <feedback>".',
      }),
      allowRetry: t.arg.boolean({
        description:
          'Let an identical call later in this run ask again. Default false: it is refused at once with this decision.',
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.calls.deny(String(args.id), args, ctx.principal!),
  }),
}));
