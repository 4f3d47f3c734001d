import type { ContentPart, ToolError, ToolResult, ToolUsage } from '../../core/tool-result.js';
import { builder } from '../../graphql/builder.js';

export const ToolErrorKindEnum = builder.enumType('ToolErrorKind', {
  values: ['RECOVERABLE', 'POLICY_DENIED', 'SYSTEM_FAILURE'] as const,
});

export const ToolErrorType = builder.objectRef<ToolError>('ToolError').implement({
  description:
    'RECOVERABLE: the model reads it and goes on. POLICY_DENIED: refused by policy or a person. SYSTEM_FAILURE: the run failed.',
  fields: (t) => ({
    kind: t.expose('kind', { type: ToolErrorKindEnum }),
    code: t.exposeString('code'),
    message: t.exposeString('message'),
  }),
});

type Part<T extends ContentPart['type']> = Extract<ContentPart, { type: T }>;

const TextPart = builder.objectRef<Part<'text'>>('TextPart').implement({
  isTypeOf: (p) => (p as ContentPart).type === 'text',
  fields: (t) => ({ text: t.exposeString('text') }),
});
const JsonPart = builder.objectRef<Part<'json'>>('JsonPart').implement({
  isTypeOf: (p) => (p as ContentPart).type === 'json',
  fields: (t) => ({ value: t.field({ type: 'JSON', nullable: true, resolve: (p) => p.value }) }),
});
const ImageRefPart = builder.objectRef<Part<'image_ref'>>('ImageRefPart').implement({
  isTypeOf: (p) => (p as ContentPart).type === 'image_ref',
  fields: (t) => ({ uri: t.exposeString('uri'), mimeType: t.exposeString('mimeType') }),
});
const AudioRefPart = builder.objectRef<Part<'audio_ref'>>('AudioRefPart').implement({
  isTypeOf: (p) => (p as ContentPart).type === 'audio_ref',
  fields: (t) => ({ uri: t.exposeString('uri'), mimeType: t.exposeString('mimeType') }),
});
const FileRefPart = builder.objectRef<Part<'file_ref'>>('FileRefPart').implement({
  isTypeOf: (p) => (p as ContentPart).type === 'file_ref',
  fields: (t) => ({
    path: t.exposeString('path'),
    uri: t.string({ nullable: true, resolve: (p) => p.uri ?? null }),
    mimeType: t.string({ nullable: true, resolve: (p) => p.mimeType ?? null }),
  }),
});
const ResourceRefPart = builder.objectRef<Part<'resource_ref'>>('ResourceRefPart').implement({
  isTypeOf: (p) => (p as ContentPart).type === 'resource_ref',
  fields: (t) => ({
    uri: t.exposeString('uri'),
    mimeType: t.string({ nullable: true, resolve: (p) => p.mimeType ?? null }),
    description: t.string({ nullable: true, resolve: (p) => p.description ?? null }),
  }),
});
const DiffRefPart = builder.objectRef<Part<'diff_ref'>>('DiffRefPart').implement({
  isTypeOf: (p) => (p as ContentPart).type === 'diff_ref',
  fields: (t) => ({
    uri: t.exposeString('uri'),
    fromRef: t.string({ nullable: true, resolve: (p) => p.fromRef ?? null }),
    toRef: t.string({ nullable: true, resolve: (p) => p.toRef ?? null }),
  }),
});

export const ContentPartUnion = builder.unionType('ContentPart', {
  types: [TextPart, JsonPart, ImageRefPart, AudioRefPart, FileRefPart, ResourceRefPart, DiffRefPart],
});

const ToolUsageType = builder.objectRef<ToolUsage>('ToolUsage').implement({
  fields: (t) => ({
    outputTokens: t.int({ nullable: true, resolve: (u) => u.outputTokens ?? null }),
    durationMs: t.int({ nullable: true, resolve: (u) => u.durationMs ?? null }),
  }),
});

export const ToolResultType = builder.objectRef<ToolResult>('ToolResult').implement({
  fields: (t) => ({
    callId: t.exposeID('callId'),
    content: t.field({ type: [ContentPartUnion], resolve: (r) => r.content }),
    structured: t.field({ type: 'JSON', nullable: true, resolve: (r) => r.structured ?? null }),
    isError: t.exposeBoolean('isError'),
    resourceRefs: t.exposeStringList('resourceRefs'),
    usage: t.field({ type: ToolUsageType, nullable: true, resolve: (r) => r.usage }),
  }),
});
