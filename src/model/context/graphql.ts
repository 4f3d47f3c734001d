import { builder, scopes } from '../../graphql/builder.js';
import { ProviderEnum } from '../graphql.js';
import { builtInPresets, type ContextPreset, presetComponentKinds } from './preset.js';
import {
  type ContextFrame,
  type DroppedComponent,
  overflowRules,
  type PromptComponent,
  promptComponentKinds,
  type ToolResultEntry,
  toolResultForms,
} from './types.js';

const PromptComponentKindEnum = builder.enumType('PromptComponentKind', { values: promptComponentKinds });
const PresetComponentKindEnum = builder.enumType('ContextPresetComponentKind', {
  values: presetComponentKinds,
  description: 'The components a preset places (SYSTEM is its `system` text, always first).',
});
const OverflowRuleEnum = builder.enumType('ContextOverflowRule', {
  values: overflowRules,
  description:
    'Over budget: TRUNCATE (with a "[… truncated N tokens]" marker), SUMMARIZE (deterministic), DROP (optional components; journaled), FAIL (CONTEXT_BUDGET_EXCEEDED).',
});
const ToolResultFormEnum = builder.enumType('ToolResultForm', { values: toolResultForms });

const PromptComponentType = builder.objectRef<PromptComponent>('PromptComponent').implement({
  fields: (t) => ({
    kind: t.expose('kind', { type: PromptComponentKindEnum }),
    source: t.exposeString('source'),
    tokenBudget: t.exposeInt('tokenBudget'),
    priority: t.exposeInt('priority', { description: 'Higher is kept longer when over the total budget.' }),
    required: t.exposeBoolean('required'),
    overflow: t.expose('overflow', { type: OverflowRuleEnum }),
    content: t.exposeString('content'),
    tokens: t.exposeInt('tokens', { description: 'o200k tokens of content.' }),
    originalTokens: t.exposeInt('originalTokens', { description: 'Tokens before the overflow rule.' }),
    truncated: t.boolean({ resolve: (c) => c.applied !== null }),
    applied: t.expose('applied', { type: OverflowRuleEnum, nullable: true }),
  }),
});

const DroppedComponentType = builder.objectRef<DroppedComponent>('DroppedPromptComponent').implement({
  fields: (t) => ({
    kind: t.expose('kind', { type: PromptComponentKindEnum }),
    source: t.exposeString('source'),
    tokens: t.exposeInt('tokens'),
    budget: t.exposeInt('budget'),
    reason: t.exposeString('reason', { description: '`component_budget` or `total_budget`.' }),
  }),
});

const ContextToolResultType = builder.objectRef<ToolResultEntry>('ContextToolResult').implement({
  fields: (t) => ({
    callId: t.exposeID('callId'),
    providerCallId: t.exposeString('providerCallId', { nullable: true }),
    name: t.exposeString('name'),
    status: t.exposeString('status'),
    form: t.expose('form', { type: ToolResultFormEnum }),
    text: t.exposeString('text'),
    isError: t.exposeBoolean('isError'),
    truncated: t.exposeBoolean('truncated'),
    omitted: t.exposeBoolean('omitted'),
  }),
});

const ContextFrameType = builder.objectRef<ContextFrame>('ContextFrame').implement({
  fields: (t) => ({
    runId: t.exposeID('runId'),
    preset: t.exposeString('preset', { nullable: true }),
    components: t.expose('components', { type: [PromptComponentType] }),
    dropped: t.expose('dropped', { type: [DroppedComponentType] }),
    toolResults: t.expose('toolResults', { type: [ContextToolResultType] }),
    toolResultsVisible: t.exposeBoolean('toolResultsVisible'),
    totalBudget: t.exposeInt('totalBudget', { nullable: true }),
    totalTokens: t.exposeInt('totalTokens'),
  }),
});

const ContextPresetComponentType = builder
  .objectRef<ContextPreset['components'][number]>('ContextPresetComponent')
  .implement({
    fields: (t) => ({
      kind: t.expose('kind', { type: PresetComponentKindEnum }),
      tokenBudget: t.exposeInt('tokenBudget'),
      priority: t.exposeInt('priority', { nullable: true }),
      overflow: t.expose('overflow', { type: OverflowRuleEnum, nullable: true }),
      required: t.exposeBoolean('required', { nullable: true }),
      maxMessages: t.exposeInt('maxMessages', { nullable: true }),
      paths: t.exposeStringList('paths', { nullable: true }),
      form: t.expose('form', { type: ToolResultFormEnum, nullable: true }),
    }),
  });

const ContextPresetType = builder.objectRef<ContextPreset>('ContextPreset').implement({
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true }),
    system: t.exposeString('system', { nullable: true }),
    totalBudget: t.exposeInt('totalBudget', { nullable: true }),
    components: t.expose('components', { type: [ContextPresetComponentType] }),
  }),
});

const ContextPresetComponentInput = builder.inputType('ContextPresetComponentInput', {
  fields: (t) => ({
    kind: t.field({ type: PresetComponentKindEnum, required: true }),
    tokenBudget: t.int({ required: true }),
    priority: t.int({ description: 'Default 50; higher is kept longer.' }),
    overflow: t.field({ type: OverflowRuleEnum, description: 'Default TRUNCATE.' }),
    required: t.boolean(),
    maxMessages: t.int({ description: 'CHAT_HISTORY: newest messages read (default 50).' }),
    paths: t.stringList({ description: 'WORKSPACE_FILES: files, or folders ending in "/".' }),
    form: t.field({ type: ToolResultFormEnum, description: 'TOOL_RESULTS: default RAW.' }),
  }),
});

const ContextPresetInput = builder.inputType('ContextPresetInput', {
  description: 'Components in prompt order; tool results are shown when there is a TOOL_RESULTS component.',
  fields: (t) => ({
    name: t.string(),
    system: t.string(),
    totalBudget: t.int(),
    components: t.field({ type: [ContextPresetComponentInput], required: true }),
  }),
});

interface ModelRequestResult {
  body: Record<string, unknown>;
  frame: ContextFrame;
}

const ModelRequestType = builder.objectRef<ModelRequestResult>('ModelRequest').implement({
  fields: (t) => ({
    body: t.field({
      type: 'JSON',
      description: 'The request body without model and sampling settings.',
      resolve: (r) => r.body,
    }),
    frame: t.expose('frame', { type: ContextFrameType }),
  }),
});

builder.queryFields((t) => ({
  contextPresets: t.field({
    type: [ContextPresetType],
    description: 'The built-in presets, usable by name.',
    authScopes: scopes.readers,
    resolve: () => Object.values(builtInPresets),
  }),
  contextFrame: t.field({
    type: ContextFrameType,
    description:
      "The run's prompt components under a preset (inline, or a built-in by name; default `default`). A dropped component is journaled once per run and state (not for a VIEWER, whose frames are previews).",
    authScopes: scopes.readers,
    args: {
      runId: t.arg.id({ required: true }),
      preset: t.arg({ type: ContextPresetInput }),
      presetName: t.arg.string(),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.context.frame(
        String(args.runId),
        { preset: args.preset, presetName: args.presetName },
        ctx.principal!,
      ),
  }),
  modelRequest: t.field({
    type: ModelRequestType,
    description:
      "The provider's next request: the frame, the tool declarations and the stored turns with their answers. Calls still pending: CONFLICT.",
    authScopes: scopes.readers,
    args: {
      runId: t.arg.id({ required: true }),
      provider: t.arg({ type: ProviderEnum, required: true }),
      preset: t.arg({ type: ContextPresetInput }),
      presetName: t.arg.string(),
      strict: t.arg.boolean(),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.models.modelRequest(
        {
          runId: String(args.runId),
          provider: args.provider,
          preset: args.preset,
          presetName: args.presetName,
          strict: args.strict,
        },
        ctx.principal!,
      ),
  }),
}));
