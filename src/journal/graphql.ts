import { type JournalEvent, journalEventTypes } from '../core/journal-event.js';
import { builder, scopes } from '../graphql/builder.js';
import { upperValues } from '../graphql/enums.js';
import { parseSeq } from './service.js';

const JournalEventTypeEnum = builder.enumType('JournalEventType', {
  description: 'What a journal event records; `payload` holds its details.',
  values: upperValues(journalEventTypes),
});

export const JournalEventType = builder.objectRef<JournalEvent>('JournalEvent').implement({
  description: 'One state change, written in the same transaction as the change; the journal is append-only.',
  fields: (t) => ({
    seq: t.string({
      description:
        'Its position (a bigint, as a string): positions only grow, and resuming after the last one seen (`afterSeq`) never skips or repeats an event. They are not consecutive.',
      resolve: (e) => e.seq.toString(),
    }),
    type: t.expose('type', { description: 'What happened.', type: JournalEventTypeEnum }),
    runId: t.id({
      description: 'The run it belongs to; null for events outside runs (registry, policy, chats).',
      nullable: true,
      resolve: (e) => e.runId ?? null,
    }),
    callId: t.id({
      description: 'The tool call it belongs to; null when it is about no single call.',
      nullable: true,
      resolve: (e) => e.callId ?? null,
    }),
    actor: t.exposeString('actor', {
      description: 'Who caused it: `<role>:<token name>`, `tool:<name>`, `system` or `system:dispatcher`.',
    }),
    payload: t.expose('payload', {
      description: "The event's details (at most 8 KiB; large things are resources).",
      type: 'JSON',
    }),
    at: t.expose('at', { description: 'When it was committed.', type: 'DateTime' }),
  }),
});

const journalArgs = (t: Parameters<Parameters<typeof builder.queryFields>[0]>[0]) => ({
  runId: t.arg.id({
    description:
      "Only this run's events; agents must name one of their own runs. A run this token may not read is NOT_FOUND.",
  }),
  callId: t.arg.id({ description: "Only this call's events. A call this token may not read is NOT_FOUND." }),
  afterSeq: t.arg.string({ description: 'Only events after this position.' }),
});

builder.queryFields((t) => ({
  journal: t.connection({
    type: JournalEventType,
    description:
      'Events in order, paged by position with `first` (100 by default, at most 1000) and `after`; `last` and `before` are not supported. Agents must name one of their runs; approvers and viewers bound to users get only the events of the runs of those users (events outside runs only with every user). Every role but EXTENSION.',
    authScopes: scopes.readers,
    args: journalArgs(t),
    resolve: async (_root, args, ctx) => {
      const filter = {
        runId: args.runId ? String(args.runId) : null,
        callId: args.callId ? String(args.callId) : null,
      };
      const reach = await ctx.services.journal.authorize(ctx.principal!, filter);
      const after = parseSeq(args.after ?? args.afterSeq);
      const limit = Math.min(Math.max(args.first ?? 100, 1), 1000);
      const events = await ctx.services.journal.read({ ...filter, afterSeq: after, limit: limit + 1 }, reach);
      const page = events.slice(0, limit);
      return {
        edges: page.map((node) => ({ cursor: node.seq.toString(), node })),
        pageInfo: {
          hasNextPage: events.length > limit,
          hasPreviousPage: after !== null && after > 0n,
          startCursor: page[0]?.seq.toString() ?? null,
          endCursor: page[page.length - 1]?.seq.toString() ?? null,
        },
      };
    },
  }),
}));

builder.subscriptionType({
  description: 'Live streams, over graphql-ws or SSE. Each field states which roles may use it.',
});

builder.subscriptionFields((t) => ({
  journalEvents: t.field({
    type: JournalEventType,
    description:
      'Replays the events after afterSeq ("0" for all), then streams new ones live, with no gap and no duplicate. Without afterSeq: only new events. Agents must name one of their runs; approvers and viewers bound to users get only the events of the runs of those users (events outside runs only with every user). Every role but EXTENSION.',
    authScopes: scopes.readers,
    args: journalArgs(t as never),
    subscribe: async (_root, args, ctx) => {
      const filter = {
        runId: args.runId ? String(args.runId) : null,
        callId: args.callId ? String(args.callId) : null,
      };
      const reach = await ctx.services.journal.authorize(ctx.principal!, filter);
      return ctx.services.journal.stream(filter, parseSeq(args.afterSeq), reach);
    },
    resolve: (event: JournalEvent) => event,
  }),
}));
