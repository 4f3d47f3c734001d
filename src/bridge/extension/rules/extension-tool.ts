import { z } from 'zod';
import { MAX_TEMPLATE_CHARS } from '../../../core/approval-message.js';
import { checkToolSchema } from '../../../core/json-schema.js';
import type { ContentPart } from '../../../core/tool-result.js';
import { toolAnnotationsSchema } from '../../../core/tool-spec.js';

export const bridgeInvocationStatuses = [
  'PENDING',
  'ANSWERED',
  'TIMED_OUT',
  'DISCONNECTED',
  'CANCELLED',
] as const;
export type BridgeInvocationStatus = (typeof bridgeInvocationStatuses)[number];

/**
 * Extension tools are namespaced `ext.<extensionId>.<name>`. Extension ids have no dots (token
 * rules) and local names may not have any either, so two extensions can never produce the same
 * full name and no extension tool can take a built-in's (`workspace.*`, `chat.*`, …) or MCP's name.
 */
const EXTENSION_PREFIX = 'ext.';
const LOCAL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const extensionToolName = (extensionId: string, localName: string) =>
  `${EXTENSION_PREFIX}${extensionId}.${localName}`;

/** The extension and local name inside a full extension tool name; null for any other name. */
export function parseExtensionToolName(name: string): { extensionId: string; localName: string } | null {
  const match = /^ext\.([a-z0-9][a-z0-9_-]{0,63})\.([A-Za-z0-9_-]{1,64})$/.exec(name);
  return match ? { extensionId: match[1]!, localName: match[2]! } : null;
}

const jsonObject = z.record(z.string(), z.unknown());

const schemaField = (objectRoot: boolean) =>
  jsonObject.superRefine((schema, ctx) => {
    const check = checkToolSchema(schema, objectRoot);
    if (!check.ok) ctx.addIssue({ code: 'custom', message: check.message });
  });

export const localNameSchema = z
  .string()
  .regex(
    LOCAL_NAME_PATTERN,
    'must be 1-64 characters of A-Z a-z 0-9 _ - (no dots: the server names it ext.<extensionId>.<name>)',
  );

const extensionToolInputSchema = z.object({
  name: localNameSchema,
  title: z.string().trim().min(1).max(200).nullish(),
  /** The legacy ToolManager's display name: what people see for the tool. */
  displayName: z.string().trim().min(1).max(200).nullish(),
  description: z.string().trim().min(1).max(8000),
  inputSchema: schemaField(true),
  outputSchema: schemaField(false).nullish(),
  annotations: toolAnnotationsSchema.nullish(),
  /** Plain text with `{{argument}}` placeholders, shown to approvers next to the arguments. */
  approvalMessageTemplate: z.string().trim().min(1).max(MAX_TEMPLATE_CHARS).nullish(),
});
export type ExtensionToolInput = z.output<typeof extensionToolInputSchema>;

export const registerExtensionToolsInputSchema = z.object({
  tools: z
    .array(extensionToolInputSchema)
    .max(100)
    .superRefine((tools, ctx) => {
      const seen = new Set<string>();
      for (const [i, tool] of tools.entries()) {
        if (seen.has(tool.name))
          ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `${tool.name} is listed twice` });
        seen.add(tool.name);
      }
    }),
  /** Unregister this extension's tools that are not in the list. */
  replace: z.boolean().nullish(),
});

/**
 * What an extension may put in a result: text and JSON. Reference parts are left out on purpose:
 * a ref would point the model at resources or workspace files the extension was never given.
 */
const answerPartSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('json'), value: z.unknown() }),
]);

const MAX_ANSWER_BYTES = 1024 * 1024;

export const extensionAnswerSchema = z
  .object({
    content: z.array(answerPartSchema).max(100).nullish(),
    structured: z.unknown().optional(),
    isError: z.boolean().nullish(),
  })
  .refine((a) => Buffer.byteLength(JSON.stringify(a)) <= MAX_ANSWER_BYTES, {
    message: `must be at most ${MAX_ANSWER_BYTES} bytes of JSON`,
  });

/** A structured ToolResult as the extension sent it, before the runtime shapes and stores it. */
export interface ExtensionAnswer {
  content: ContentPart[];
  structured: unknown;
  isError: boolean;
}

export function answerOf(input: z.output<typeof extensionAnswerSchema>): ExtensionAnswer {
  return {
    content: (input.content ?? []) as ContentPart[],
    structured: input.structured ?? null,
    isError: input.isError ?? false,
  };
}
