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

const PromptComponentKindEnum = builder.enumType('PromptComponentKind', {
  description:
    'What a prompt component holds: the SYSTEM text, CHAT_HISTORY, WORLD_INFO, WORKSPACE_FILES, TOOL_RESULTS, or the PROMPT an agent run was started with (last, never cut).',
  values: promptComponentKinds,
});
const PresetComponentKindEnum = builder.enumType('ContextPresetComponentKind', {
  values: presetComponentKinds,
  description: 'The components a preset places (SYSTEM is its `system` text, always first).',
});
const OverflowRuleEnum = builder.enumType('ContextOverflowRule', {
  values: overflowRules,
  description:
    'Over budget: TRUNCATE (with a "[… truncated N tokens]" marker), SUMMARIZE (deterministic), DROP (optional components; journaled), FAIL (CONTEXT_BUDGET_EXCEEDED).',
});
const ToolResultFormEnum = builder.enumType('ToolResultForm', {
  description: "RAW: the tool's output as it came. SUMMARY: a short summary of each result.",
  values: toolResultForms,
});

const PromptComponentType = builder.objectRef<PromptComponent>('PromptComponent').implement({
  description: 'One assembled part of the prompt, with its tokens and what its budget did to it.',
  fields: (t) => ({
    kind: t.expose('kind', { description: 'What it holds.', type: PromptComponentKindEnum }),
    source: t.exposeString('source', {
      description:
        'Where the content came from: `preset`, `chat:<id>`, `worldinfo:<activation id>`, `workspace:<id>` or `run:<id>`.',
    }),
    tokenBudget: t.exposeInt('tokenBudget', { description: 'Tokens (o200k) it may take.' }),
    priority: t.exposeInt('priority', { description: 'Higher is kept longer when over the total budget.' }),
    required: t.exposeBoolean('required', { description: 'A required component is never dropped.' }),
    overflow: t.expose('overflow', {
      description: 'What happens when it is over its budget.',
      type: OverflowRuleEnum,
    }),
    content: t.exposeString('content', { description: 'The text as it goes into the prompt.' }),
    tokens: t.exposeInt('tokens', { description: 'o200k tokens of content.' }),
    originalTokens: t.exposeInt('originalTokens', { description: 'Tokens before the overflow rule.' }),
    truncated: t.boolean({
      description: 'Its overflow rule changed the content.',
      resolve: (c) => c.applied !== null,
    }),
    applied: t.expose('applied', {
      description: 'The overflow rule that changed the content; null when it fitted.',
      type: OverflowRuleEnum,
      nullable: true,
    }),
  }),
});

const DroppedComponentType = builder.objectRef<DroppedComponent>('DroppedPromptComponent').implement({
  description: 'A component left out of the frame, and why.',
  fields: (t) => ({
    kind: t.expose('kind', { description: 'What it held.', type: PromptComponentKindEnum }),
    source: t.exposeString('source', { description: 'Where its content came from.' }),
    tokens: t.exposeInt('tokens', { description: 'Its tokens (o200k) before it was dropped.' }),
    budget: t.exposeInt('budget', {
      description: 'The budget it was over (its own, or what was left of the total).',
    }),
    reason: t.exposeString('reason', { description: '`component_budget` or `total_budget`.' }),
  }),
});

const ContextToolResultType = builder.objectRef<ToolResultEntry>('ContextToolResult').implement({
  description: 'One finished call of the run as the model reads it in this frame.',
  fields: (t) => ({
    callId: t.exposeID('callId', { description: 'The call.' }),
    providerCallId: t.exposeString('providerCallId', {
      description: "The model provider's call id; null for calls the runtime requested itself.",
      nullable: true,
    }),
    name: t.exposeString('name', { description: 'The tool called.' }),
    status: t.exposeString('status', {
      description: 'The call status (COMPLETED, FAILED, DENIED, EXPIRED or CANCELLED).',
    }),
    form: t.expose('form', { description: 'Raw output or summary.', type: ToolResultFormEnum }),
    text: t.exposeString('text', { description: 'What the model reads.' }),
    isError: t.exposeBoolean('isError', { description: 'The call did not succeed.' }),
    truncated: t.exposeBoolean('truncated', {
      description: 'The text was cut to fit the budget (a marker says how much).',
    }),
    omitted: t.exposeBoolean('omitted', {
      description: 'Over budget and left out; its native answer carries only a marker.',
    }),
  }),
});

const ContextFrameType = builder.objectRef<ContextFrame>('ContextFrame').implement({
  description: "A run's prompt components, assembled under a preset.",
  fields: (t) => ({
    runId: t.exposeID('runId', { description: 'The run.' }),
    preset: t.exposeString('preset', {
      description: 'The preset name; null for an unnamed inline preset.',
      nullable: true,
    }),
    components: t.expose('components', {
      description: 'The kept components, in prompt order.',
      type: [PromptComponentType],
    }),
    dropped: t.expose('dropped', {
      description: 'The components left out (over their budget with DROP, or over the total budget).',
      type: [DroppedComponentType],
    }),
    toolResults: t.expose('toolResults', {
      description:
        'The entries of the TOOL_RESULTS component; empty when the preset does not show tool results.',
      type: [ContextToolResultType],
    }),
    toolResultsVisible: t.exposeBoolean('toolResultsVisible', {
      description: 'false when the preset has no TOOL_RESULTS component, or it was dropped.',
    }),
    totalBudget: t.exposeInt('totalBudget', {
      description: 'Tokens (o200k) the whole frame may take; null for no limit.',
      nullable: true,
    }),
    totalTokens: t.exposeInt('totalTokens', { description: 'Tokens (o200k) of the kept components.' }),
  }),
});

const ContextPresetComponentType = builder
  .objectRef<ContextPreset['components'][number]>('ContextPresetComponent')
  .implement({
    description: 'One component a preset places, with its budget.',
    fields: (t) => ({
      kind: t.expose('kind', { description: 'What the component holds.', type: PresetComponentKindEnum }),
      tokenBudget: t.exposeInt('tokenBudget', { description: 'Tokens (o200k) it may take.' }),
      priority: t.exposeInt('priority', {
        description: 'Higher is kept longer over the total budget; null means 50.',
        nullable: true,
      }),
      overflow: t.expose('overflow', {
        description: 'What happens over its budget; null means TRUNCATE.',
        type: OverflowRuleEnum,
        nullable: true,
      }),
      required: t.exposeBoolean('required', {
        description: 'A required component is never dropped; null means false.',
        nullable: true,
      }),
      maxMessages: t.exposeInt('maxMessages', {
        description: 'CHAT_HISTORY: newest messages read; null means 50.',
        nullable: true,
      }),
      paths: t.exposeStringList('paths', {
        description: 'WORKSPACE_FILES: files, or folders ending in "/"; null for other kinds.',
        nullable: true,
      }),
      form: t.expose('form', {
        description: 'TOOL_RESULTS: raw or summary; null means RAW.',
        type: ToolResultFormEnum,
        nullable: true,
      }),
    }),
  });

const ContextPresetType = builder.objectRef<ContextPreset>('ContextPreset').implement({
  description: 'How a prompt is assembled: components in prompt order, each with a budget.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'The name to pass as `presetName`.', nullable: true }),
    system: t.exposeString('system', {
      description: 'The SYSTEM text, placed first; null for none.',
      nullable: true,
    }),
    totalBudget: t.exposeInt('totalBudget', {
      description: 'Tokens (o200k) the whole frame may take; null for no limit.',
      nullable: true,
    }),
    components: t.expose('components', {
      description: 'The components, in prompt order.',
      type: [ContextPresetComponentType],
    }),
  }),
});

const ContextPresetComponentInput = builder.inputType('ContextPresetComponentInput', {
  description: 'One component to place, with its budget; each kind at most once.',
  fields: (t) => ({
    kind: t.field({
      description: 'What the component holds.',
      type: PresetComponentKindEnum,
      required: true,
    }),
    tokenBudget: t.int({ description: 'Tokens (o200k) it may take, 1 to 2,000,000.', required: true }),
    priority: t.int({ description: 'Default 50; higher is kept longer.' }),
    overflow: t.field({ type: OverflowRuleEnum, description: 'Default TRUNCATE.' }),
    required: t.boolean({ description: 'Never dropped (DROP is refused for it); default false.' }),
    maxMessages: t.int({ description: 'CHAT_HISTORY: newest messages read (default 50).' }),
    paths: t.stringList({ description: 'WORKSPACE_FILES: files, or folders ending in "/".' }),
    form: t.field({ type: ToolResultFormEnum, description: 'TOOL_RESULTS: default RAW.' }),
  }),
});

export const ContextPresetInput = builder.inputType('ContextPresetInput', {
  description: 'Components in prompt order; tool results are shown when there is a TOOL_RESULTS component.',
  fields: (t) => ({
    name: t.string({ description: 'A name for the frame; it is reported, not stored.' }),
    system: t.string({ description: 'The SYSTEM text, placed first (at most 200,000 characters).' }),
    totalBudget: t.int({
      description: 'Tokens (o200k) the whole frame may take, 1 to 2,000,000; none when absent.',
    }),
    components: t.field({
      description: 'The components, in prompt order.',
      type: [ContextPresetComponentInput],
      required: true,
    }),
  }),
});

interface ModelRequestResult {
  body: Record<string, unknown>;
  frame: ContextFrame;
}

const ModelRequestType = builder.objectRef<ModelRequestResult>('ModelRequest').implement({
  description: "The provider's next request for a run, and the frame it was built from.",
  fields: (t) => ({
    body: t.field({
      type: 'JSON',
      description: 'The request body without model and sampling settings.',
      resolve: (r) => r.body,
    }),
    frame: t.expose('frame', {
      description: 'The context frame the first user message was built from.',
      type: ContextFrameType,
    }),
  }),
});

builder.queryFields((t) => ({
  contextPresets: t.field({
    type: [ContextPresetType],
    description: 'The built-in presets, usable by name. Every role but EXTENSION.',
    authScopes: scopes.readers,
    resolve: () => Object.values(builtInPresets),
  }),
  contextFrame: t.field({
    type: ContextFrameType,
    description:
      "The run's prompt components under a preset (inline, or a built-in by name; default `default`). A dropped component is journaled once per run and state (not for a VIEWER, whose frames are previews). Every role but EXTENSION.",
    authScopes: scopes.readers,
    args: {
      runId: t.arg.id({ description: "The run (an agent's own).", required: true }),
      preset: t.arg({
        description: 'An inline preset; give it or presetName, not both.',
        type: ContextPresetInput,
      }),
      presetName: t.arg.string({
        description:
          'A built-in preset (`default`, `summaries`, `no-tool-results`); `default` when neither is given.',
      }),
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
      "The provider's next request: the frame, the tool declarations and the stored turns with their answers. Calls still pending: CONFLICT. Every role but EXTENSION.",
    authScopes: scopes.readers,
    args: {
      runId: t.arg.id({ description: "The run (an agent's own).", required: true }),
      provider: t.arg({ description: 'The wire format of the request.', type: ProviderEnum, required: true }),
      preset: t.arg({
        description: 'An inline preset; give it or presetName, not both.',
        type: ContextPresetInput,
      }),
      presetName: t.arg.string({
        description:
          'A built-in preset (`default`, `summaries`, `no-tool-results`); `default` when neither is given.',
      }),
      strict: t.arg.boolean({
        description: 'Strict decoding of the tool declarations; default on for OpenAI, off for Anthropic.',
      }),
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
