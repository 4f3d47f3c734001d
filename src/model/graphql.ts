import { ToolCallType } from '../calls/graphql/tool-call.js';
import { builder, scopes } from '../graphql/builder.js';
import { upperValues } from '../graphql/enums.js';
import { type NarrowingEntry, narrowingActions } from './providers/schema-narrowing/index.js';
import type { ToolDeclarations, ToolNarrowingReport } from './providers/types.js';
import { providerKinds } from './providers/types.js';
import type { SubmittedTurn } from './service.js';
import type { ModelTurnRow } from './tables.js';

export const ProviderEnum = builder.enumType('Provider', {
  values: providerKinds,
  description:
    'A wire format: OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, Gemini generateContent.',
});

const NarrowingActionEnum = builder.enumType('SchemaNarrowingAction', {
  description:
    'DROPPED: a keyword the provider does not accept was removed. REWRITTEN: it was changed into a form the provider accepts (such as an object closed for strict decoding).',
  values: upperValues(narrowingActions),
});

const NarrowingEntryType = builder.objectRef<NarrowingEntry>('SchemaNarrowingEntry').implement({
  description: 'One change made to a tool input schema so that the provider accepts it.',
  fields: (t) => ({
    path: t.exposeString('path', { description: "JSON Pointer in the narrowed schema ('' is the root)." }),
    action: t.expose('action', { description: 'Dropped or rewritten.', type: NarrowingActionEnum }),
    keyword: t.exposeString('keyword', {
      description: 'The JSON Schema keyword concerned, such as `pattern` or `oneOf`.',
    }),
    detail: t.exposeString('detail', { description: 'What was done, for people.' }),
  }),
});

const NarrowingReportType = builder.objectRef<ToolNarrowingReport>('ToolNarrowingReport').implement({
  description: "How one tool's input schema was changed to fit the provider.",
  fields: (t) => ({
    tool: t.exposeString('tool', { description: 'Our tool name.' }),
    nativeName: t.exposeString('nativeName', { description: 'The name the provider sees.' }),
    strict: t.exposeBoolean('strict', { description: 'Whether the tool is declared with strict decoding.' }),
    entries: t.expose('entries', {
      description: 'Each change; empty when the schema went unchanged.',
      type: [NarrowingEntryType],
    }),
  }),
});

interface NamePair {
  name: string;
  nativeName: string;
}

const ProviderToolNameType = builder.objectRef<NamePair>('ProviderToolName').implement({
  description: 'Our tool name and the name the provider sees (dots are not allowed there).',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Our tool name, such as `test.echo`.' }),
    nativeName: t.exposeString('nativeName', {
      description: 'The name the provider sees, such as `test_echo`.',
    }),
  }),
});

const ProviderToolsType = builder.objectRef<ToolDeclarations>('ProviderTools').implement({
  description: "A run's visible tools, declared in one provider's format.",
  fields: (t) => ({
    tools: t.field({
      type: 'JSON',
      description: "The request's `tools` field, ready to send.",
      resolve: (d) => d.tools,
    }),
    names: t.field({
      description: 'Our tool names and the provider names they map to.',
      type: [ProviderToolNameType],
      resolve: (d) => [...d.names.byName].map(([name, nativeName]) => ({ name, nativeName })),
    }),
    report: t.expose('report', {
      description: 'What was dropped or rewritten in each schema so that the provider accepts it.',
      type: [NarrowingReportType],
    }),
  }),
});

const ModelTurnType = builder.objectRef<ModelTurnRow>('ModelTurn').implement({
  description: 'An assistant turn as the provider produced it, stored to be replayed in later requests.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The turn id.' }),
    index: t.exposeInt('index', { description: '0, 1, 2, … within the run.' }),
    provider: t.field({
      description: 'The wire format it arrived in.',
      type: ProviderEnum,
      resolve: (turn) => turn.provider as never,
    }),
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
    providerCallIds: t.exposeStringList('providerCallIds', {
      description: 'The provider call ids of the calls it made.',
    }),
    createdAt: t.expose('createdAt', { description: 'When it was submitted.', type: 'DateTime' }),
  }),
});

const SubmittedTurnType = builder.objectRef<SubmittedTurn>('SubmittedModelResponse').implement({
  description: 'The stored turn of a submitted response and the calls it requested.',
  fields: (t) => ({
    turn: t.expose('turn', { description: 'The assistant turn, as stored.', type: ModelTurnType }),
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
    description:
      "The run's visible tools in the provider's format, with what was changed to fit it. Every role but EXTENSION.",
    authScopes: scopes.readers,
    args: {
      runId: t.arg.id({ description: "The run (an agent's own).", required: true }),
      provider: t.arg({
        description: 'The wire format to declare the tools in.',
        type: ProviderEnum,
        required: true,
      }),
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
      'The native tool-result messages for the model turns these calls belong to (every call of such a turn is answered). Calls still pending: CONFLICT. Every role but EXTENSION.',
    authScopes: scopes.readers,
    args: {
      runId: t.arg.id({ description: "The run (an agent's own).", required: true }),
      provider: t.arg({ description: 'The wire format to answer in.', type: ProviderEnum, required: true }),
      callIds: t.arg.idList({
        description: 'Finished calls of the run; every call of their turns is answered.',
        required: true,
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.models.toolResultMessages(
        { runId: String(args.runId), provider: args.provider, callIds: args.callIds.map(String) },
        ctx.principal!,
      ),
  }),
  modelTurns: t.field({
    description: "The run's stored assistant turns, in order. Every role but EXTENSION.",
    type: [ModelTurnType],
    authScopes: scopes.readers,
    args: { runId: t.arg.id({ description: "The run (an agent's own).", required: true }) },
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
      'Parses a provider response, stores its assistant turn and requests every call through the normal lifecycle. The same response again returns the same turn and calls. ADMIN, HOST and AGENT.',
    authScopes: scopes.agents,
    args: {
      runId: t.arg.id({
        description: "The run the response belongs to (an agent's own, RUNNING).",
        required: true,
      }),
      provider: t.arg({
        description: 'The wire format of the response.',
        type: ProviderEnum,
        required: true,
      }),
      response: t.arg({
        type: 'JSON',
        required: true,
        description: 'The response body, or with stream: the list of events/chunks.',
      }),
      stream: t.arg.boolean({
        description: '`response` is the list of decoded stream events/chunks rather than one body.',
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.models.submit(
        { runId: String(args.runId), provider: args.provider, response: args.response, stream: args.stream },
        ctx.principal!,
      ),
  }),
}));
