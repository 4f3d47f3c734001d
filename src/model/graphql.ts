import { ToolCallType } from '../calls/graphql/tool-call.js';
import { builder, scopes } from '../graphql/builder.js';
import type { NarrowingEntry } from './providers/schema-narrowing/index.js';
import type { ToolDeclarations, ToolNarrowingReport } from './providers/types.js';
import { providerKinds } from './providers/types.js';
import type { ModelTurnRow, SubmittedTurn } from './service.js';

export const ProviderEnum = builder.enumType('Provider', {
  values: providerKinds,
  description:
    'A wire format: OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, Gemini generateContent.',
});

const NarrowingActionEnum = builder.enumType('SchemaNarrowingAction', {
  values: { DROPPED: { value: 'dropped' }, REWRITTEN: { value: 'rewritten' } } as const,
});

const NarrowingEntryType = builder.objectRef<NarrowingEntry>('SchemaNarrowingEntry').implement({
  description: 'One change made to a tool input schema so that the provider accepts it.',
  fields: (t) => ({
    path: t.exposeString('path', { description: "JSON Pointer in the narrowed schema ('' is the root)." }),
    action: t.expose('action', { type: NarrowingActionEnum }),
    keyword: t.exposeString('keyword'),
    detail: t.exposeString('detail'),
  }),
});

const NarrowingReportType = builder.objectRef<ToolNarrowingReport>('ToolNarrowingReport').implement({
  fields: (t) => ({
    tool: t.exposeString('tool'),
    nativeName: t.exposeString('nativeName'),
    strict: t.exposeBoolean('strict', { description: 'Whether the tool is declared with strict decoding.' }),
    entries: t.expose('entries', { type: [NarrowingEntryType] }),
  }),
});

interface NamePair {
  name: string;
  nativeName: string;
}

const ProviderToolNameType = builder.objectRef<NamePair>('ProviderToolName').implement({
  description: 'Our tool name and the name the provider sees (dots are not allowed there).',
  fields: (t) => ({ name: t.exposeString('name'), nativeName: t.exposeString('nativeName') }),
});

const ProviderToolsType = builder.objectRef<ToolDeclarations>('ProviderTools').implement({
  fields: (t) => ({
    tools: t.field({
      type: 'JSON',
      description: "The request's `tools` field, ready to send.",
      resolve: (d) => d.tools,
    }),
    names: t.field({
      type: [ProviderToolNameType],
      resolve: (d) => [...d.names.byName].map(([name, nativeName]) => ({ name, nativeName })),
    }),
    report: t.expose('report', { type: [NarrowingReportType] }),
  }),
});

export const ModelTurnType = builder.objectRef<ModelTurnRow>('ModelTurn').implement({
  description: 'An assistant turn as the provider produced it, stored to be replayed in later requests.',
  fields: (t) => ({
    id: t.exposeID('id'),
    index: t.exposeInt('index', { description: '0, 1, 2, … within the run.' }),
    provider: t.field({ type: ProviderEnum, resolve: (turn) => turn.provider as never }),
    native: t.field({
      type: 'JSON',
      description: 'The native messages, items or contents, exactly as received.',
      resolve: (turn) => JSON.parse(turn.native),
    }),
    parts: t.field({
      type: 'JSON',
      description: 'The provider-neutral text and calls.',
      resolve: (turn) => turn.parts,
    }),
    providerCallIds: t.exposeStringList('providerCallIds'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const SubmittedTurnType = builder.objectRef<SubmittedTurn>('SubmittedModelResponse').implement({
  fields: (t) => ({
    turn: t.expose('turn', { type: ModelTurnType }),
    toolCalls: t.expose('calls', {
      type: [ToolCallType],
      description:
        'One per call of the turn, in order; calls the model got wrong are FAILED (RECOVERABLE) and still get an answer.',
    }),
  }),
});

builder.queryFields((t) => ({
  providerTools: t.field({
    type: ProviderToolsType,
    description: "The run's visible tools in the provider's format, with what was changed to fit it.",
    authScopes: scopes.readers,
    args: {
      runId: t.arg.id({ required: true }),
      provider: t.arg({ type: ProviderEnum, required: true }),
      strict: t.arg.boolean({ description: 'Strict decoding; default on for OpenAI, off for Anthropic.' }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.models.providerTools(
        String(args.runId),
        args.provider,
        args.strict ?? null,
        ctx.principal!,
      ),
  }),
  toolResultMessages: t.field({
    type: 'JSON',
    description:
      'The native tool-result messages for the model turns these calls belong to (every call of such a turn is answered). Calls still pending: CONFLICT.',
    authScopes: scopes.readers,
    args: {
      runId: t.arg.id({ required: true }),
      provider: t.arg({ type: ProviderEnum, required: true }),
      callIds: t.arg.idList({ required: true }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.models.toolResultMessages(
        { runId: String(args.runId), provider: args.provider, callIds: args.callIds.map(String) },
        ctx.principal!,
      ),
  }),
  modelTurns: t.field({
    type: [ModelTurnType],
    authScopes: scopes.readers,
    args: { runId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const run = await ctx.services.context.requireRun(String(args.runId), ctx.principal!);
      return ctx.services.models.turns(run.id);
    },
  }),
}));

builder.mutationFields((t) => ({
  submitModelResponse: t.field({
    type: SubmittedTurnType,
    description:
      'Parses a provider response, stores its assistant turn and requests every call through the normal lifecycle. The same response again returns the same turn and calls.',
    authScopes: scopes.agents,
    args: {
      runId: t.arg.id({ required: true }),
      provider: t.arg({ type: ProviderEnum, required: true }),
      response: t.arg({
        type: 'JSON',
        required: true,
        description: 'The response body, or with stream: the list of events/chunks.',
      }),
      stream: t.arg.boolean(),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.models.submit(
        { runId: String(args.runId), provider: args.provider, response: args.response, stream: args.stream },
        ctx.principal!,
      ),
  }),
}));
