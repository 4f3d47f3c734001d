import {
  type ContentPart,
  type ToolError,
  type ToolResult,
  type ToolUsage,
  toolErrorKinds,
} from '../../core/tool-result.js';
import { builder } from '../../graphql/builder.js';

const ToolErrorKindEnum = builder.enumType('ToolErrorKind', {
  description:
    'RECOVERABLE: the model reads it and goes on. POLICY_DENIED: refused by policy or a person. SYSTEM_FAILURE: the run failed.',
  values: toolErrorKinds,
});

export const ToolErrorType = builder.objectRef<ToolError>('ToolError').implement({
  description:
    'RECOVERABLE: the model reads it and goes on. POLICY_DENIED: refused by policy or a person. SYSTEM_FAILURE: the run failed.',
  fields: (t) => ({
    kind: t.expose('kind', { description: 'Who has to act on it.', type: ToolErrorKindEnum }),
    code: t.exposeString('code', {
      description:
        'A stable machine-readable code, such as `invalid_arguments`, `timeout` or `budget_exhausted`.',
    }),
    message: t.exposeString('message', { description: 'What went wrong, for the model and for people.' }),
  }),
});

type Part<T extends ContentPart['type']> = Extract<ContentPart, { type: T }>;

const TextPart = builder.objectRef<Part<'text'>>('TextPart').implement({
  description: 'Text output.',
  isTypeOf: (p) => (p as ContentPart).type === 'text',
  fields: (t) => ({ text: t.exposeString('text', { description: 'The text.' }) }),
});
const JsonPart = builder.objectRef<Part<'json'>>('JsonPart').implement({
  description: 'A JSON value in the output.',
  isTypeOf: (p) => (p as ContentPart).type === 'json',
  fields: (t) => ({
    value: t.field({
      description: 'The value (null is a JSON null).',
      type: 'JSON',
      nullable: true,
      resolve: (p) => p.value,
    }),
  }),
});
const ImageRefPart = builder.objectRef<Part<'image_ref'>>('ImageRefPart').implement({
  description: 'An image, stored as a resource.',
  isTypeOf: (p) => (p as ContentPart).type === 'image_ref',
  fields: (t) => ({
    uri: t.exposeString('uri', { description: 'The resource holding the image.' }),
    mimeType: t.exposeString('mimeType', { description: 'Its media type.' }),
  }),
});
const AudioRefPart = builder.objectRef<Part<'audio_ref'>>('AudioRefPart').implement({
  description: 'Audio, stored as a resource.',
  isTypeOf: (p) => (p as ContentPart).type === 'audio_ref',
  fields: (t) => ({
    uri: t.exposeString('uri', { description: 'The resource holding the audio.' }),
    mimeType: t.exposeString('mimeType', { description: 'Its media type.' }),
  }),
});
const FileRefPart = builder.objectRef<Part<'file_ref'>>('FileRefPart').implement({
  description: 'A file the call produced or read.',
  isTypeOf: (p) => (p as ContentPart).type === 'file_ref',
  fields: (t) => ({
    path: t.exposeString('path', { description: 'Its path (a workspace path for workspace tools).' }),
    uri: t.string({
      description: 'The resource holding its content; null when it is not stored.',
      nullable: true,
      resolve: (p) => p.uri ?? null,
    }),
    mimeType: t.string({
      description: 'Its media type; null when unknown.',
      nullable: true,
      resolve: (p) => p.mimeType ?? null,
    }),
  }),
});
const ResourceRefPart = builder.objectRef<Part<'resource_ref'>>('ResourceRefPart').implement({
  description: 'Output stored as a resource because it was too large; the text parts keep a preview.',
  isTypeOf: (p) => (p as ContentPart).type === 'resource_ref',
  fields: (t) => ({
    uri: t.exposeString('uri', { description: 'The resource; read it with `resource(uri)`.' }),
    mimeType: t.string({
      description: 'Its media type; null when unknown.',
      nullable: true,
      resolve: (p) => p.mimeType ?? null,
    }),
    description: t.string({
      description: 'What it holds; null when unstated.',
      nullable: true,
      resolve: (p) => p.description ?? null,
    }),
  }),
});
const DiffRefPart = builder.objectRef<Part<'diff_ref'>>('DiffRefPart').implement({
  description: 'A unified diff stored as a resource, such as what a checkpoint restore undid.',
  isTypeOf: (p) => (p as ContentPart).type === 'diff_ref',
  fields: (t) => ({
    uri: t.exposeString('uri', { description: 'The resource holding the diff.' }),
    fromRef: t.string({
      description: 'What it diffs from (a checkpoint id); null when unstated.',
      nullable: true,
      resolve: (p) => p.fromRef ?? null,
    }),
    toRef: t.string({
      description: 'What it diffs to (a checkpoint id); null when unstated.',
      nullable: true,
      resolve: (p) => p.toRef ?? null,
    }),
  }),
});

const ContentPartUnion = builder.unionType('ContentPart', {
  description: 'One piece of tool output.',
  types: [TextPart, JsonPart, ImageRefPart, AudioRefPart, FileRefPart, ResourceRefPart, DiffRefPart],
});

const ToolUsageType = builder.objectRef<ToolUsage>('ToolUsage').implement({
  description: 'What a call consumed.',
  fields: (t) => ({
    outputTokens: t.int({
      description: 'Tokens (o200k) of the output; null when not counted.',
      nullable: true,
      resolve: (u) => u.outputTokens ?? null,
    }),
    durationMs: t.int({
      description: 'How long the call ran, in milliseconds; null when not measured.',
      nullable: true,
      resolve: (u) => u.durationMs ?? null,
    }),
  }),
});

export const ToolResultType = builder.objectRef<ToolResult>('ToolResult').implement({
  description: 'What a call returned, errors included; the model reads it.',
  fields: (t) => ({
    callId: t.exposeID('callId', { description: 'The call it answers.' }),
    content: t.field({
      description: 'The output, in order.',
      type: [ContentPartUnion],
      resolve: (r) => r.content,
    }),
    structured: t.field({
      description: "Structured output (matching the tool's outputSchema when it has one); null when none.",
      type: 'JSON',
      nullable: true,
      resolve: (r) => r.structured ?? null,
    }),
    isError: t.exposeBoolean('isError', { description: 'The call failed; the content says why.' }),
    resourceRefs: t.exposeStringList('resourceRefs', {
      description: 'URIs of every resource the output refers to.',
    }),
    usage: t.field({
      description: 'What the call consumed; null when not measured.',
      type: ToolUsageType,
      nullable: true,
      resolve: (r) => r.usage,
    }),
  }),
});
