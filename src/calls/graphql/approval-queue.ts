import { builder, scopes } from '../../graphql/builder.js';
import type { ApprovalQueueEvent } from '../approval-queue.js';
import {
  type ApprovalQueueFilter,
  approvalQueueEventKinds,
  approvalQueueFilterSchema,
} from '../rules/queue-filter.js';
import type { ToolCallRow } from '../tables.js';
import { ToolSourceEnum } from './tool.js';
import { callConnection, ToolCallType } from './tool-call.js';

const ApprovalQueueEventKindEnum = builder.enumType('ApprovalQueueEventKind', {
  description:
    'ENTERED: a call the client should now show (again for a listed call that changed while it waits, such as an approval toward its quorum: replace it); LEFT: a call it should drop (decided, expired or cancelled); SNAPSHOT_END: every call pending at subscription time has been sent, live changes follow.',
  values: approvalQueueEventKinds,
});

const ApprovalQueueEventType = builder.objectRef<ApprovalQueueEvent>('ApprovalQueueEvent').implement({
  description: 'One change to the approval queue as a subscriber sees it.',
  fields: (t) => ({
    kind: t.field({
      description: 'What happened.',
      type: ApprovalQueueEventKindEnum,
      resolve: (e) => e.kind,
    }),
    call: t.field({
      description: 'The call as it is now (for LEFT, with its decision); null for SNAPSHOT_END.',
      type: ToolCallType,
      nullable: true,
      resolve: (e) => e.call,
    }),
    pending: t.exposeInt('pending', {
      description:
        'How many calls this subscription holds after the event: a count a dashboard can show as is.',
    }),
  }),
});

const ApprovalQueueFilterInput = builder.inputType('ApprovalQueueFilter', {
  description:
    'Narrows the queue; it never widens it past the users the token is bound to. Unset fields keep everything.',
  fields: (t) => ({
    userId: t.string({ description: "The run's user (an id, not a pattern)." }),
    runId: t.id({ description: 'One run.' }),
    toolPattern: t.string({ description: 'A tool name or a glob with `*` and `?`, such as `workspace.*`.' }),
    source: t.field({ description: 'Where the tool comes from.', type: ToolSourceEnum }),
  }),
});

builder.queryFields((t) => ({
  pendingApprovals: t.connection(
    {
      type: ToolCallType,
      description:
        'Calls awaiting a decision, oldest first: only those of runs of the users this token is bound to (every user for ADMIN and `*` tokens), narrowed by `filter`. ADMIN, APPROVER and VIEWER.',
      authScopes: scopes.people,
      args: {
        filter: t.arg({
          description: 'Narrows the list.',
          type: ApprovalQueueFilterInput,
          validate: { schema: approvalQueueFilterSchema },
        }),
      },
      resolve: async (_root, args, ctx) => {
        const filter = args.filter as ApprovalQueueFilter | null | undefined;
        const connection = await callConnection(args, (page) =>
          ctx.services.approvalQueue.pendingApprovals(ctx.principal!, filter, page),
        );
        return Object.assign(connection, {
          totalCount: () => ctx.services.approvalQueue.countPendingApprovals(ctx.principal!, filter),
        });
      },
    },
    {
      fields: (c) => ({
        totalCount: c.int({
          description: 'How many calls the filter keeps in all pages; counted only when asked for.',
          resolve: (connection) =>
            (connection as unknown as { totalCount: () => Promise<number> }).totalCount(),
        }),
      }),
    },
  ),
}));

/** Both queue subscriptions narrow by the same validated filter. */
const queueFilterArgs = builder.args((t) => ({
  filter: t.field({
    description: 'Narrows the queue.',
    type: ApprovalQueueFilterInput,
    validate: { schema: approvalQueueFilterSchema },
  }),
}));

builder.subscriptionFields((t) => ({
  approvalQueueEvents: t.field({
    type: ApprovalQueueEventType,
    description:
      'One ENTERED per call awaiting approval now (oldest first), SNAPSHOT_END, then ENTERED and LEFT as calls enter and leave the queue: only calls of runs of the users this token is bound to (every user for ADMIN and `*` tokens), narrowed by `filter`. After a reconnect, subscribe again and rebuild from the snapshot. ADMIN, APPROVER and VIEWER.',
    authScopes: scopes.people,
    args: queueFilterArgs,
    subscribe: (_root, args, ctx) =>
      ctx.services.approvalQueue.events(ctx.principal!, args.filter as ApprovalQueueFilter | null),
    resolve: (event: ApprovalQueueEvent) => event,
  }),
  approvalQueue: t.field({
    type: ToolCallType,
    description:
      'The first version of the queue, kept for existing clients: the calls awaiting approval now, then every call that enters or leaves the queue, as it is then, with no marker between the two (prefer `approvalQueueEvents`). Only calls of runs of the users this token is bound to (every user for ADMIN and `*` tokens), narrowed by `filter`. ADMIN, APPROVER and VIEWER.',
    authScopes: scopes.people,
    args: queueFilterArgs,
    subscribe: (_root, args, ctx) =>
      ctx.services.approvalQueue.rows(ctx.principal!, args.filter as ApprovalQueueFilter | null),
    resolve: (call: ToolCallRow) => call,
  }),
}));
