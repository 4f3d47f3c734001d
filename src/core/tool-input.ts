import { z } from 'zod';
import { checkToolSchema } from './json-schema.js';
import {
  type JsonSchema,
  normalizeAnnotations,
  normalizeBudget,
  type ToolSpec,
  toolAnnotationsSchema,
  toolBudgetSchema,
  toolNameSchema,
  toolPermissions,
  toolSources,
  toolVisibilities,
} from './tool-spec.js';

const jsonObject = z.record(z.string(), z.unknown());

const inputSchemaField = jsonObject.superRefine((schema, ctx) => {
  const check = checkToolSchema(schema, true);
  if (!check.ok) ctx.addIssue({ code: 'custom', message: check.message });
});

const outputSchemaField = jsonObject.superRefine((schema, ctx) => {
  const check = checkToolSchema(schema, false);
  if (!check.ok) ctx.addIssue({ code: 'custom', message: check.message });
});

export const registerToolInputSchema = z.object({
  name: toolNameSchema,
  title: z.string().trim().min(1).max(200),
  description: z.string().trim().min(1).max(8000),
  inputSchema: inputSchemaField,
  outputSchema: outputSchemaField.nullish(),
  annotations: toolAnnotationsSchema.nullish(),
  visibility: z.enum(toolVisibilities).nullish(),
  permission: z.enum(toolPermissions).nullish(),
  budget: toolBudgetSchema.nullish(),
  source: z.enum(toolSources).refine((s) => s !== 'BUILT_IN', {
    message: 'BUILT_IN is reserved for tools defined by the server',
  }),
});
export type RegisterToolInput = z.input<typeof registerToolInputSchema>;

export const updateToolInputSchema = registerToolInputSchema.omit({ name: true, source: true }).extend({
  title: registerToolInputSchema.shape.title.nullish(),
  description: registerToolInputSchema.shape.description.nullish(),
  inputSchema: inputSchemaField.nullish(),
  enabled: z.boolean().nullish(),
});
export type UpdateToolInput = z.input<typeof updateToolInputSchema>;

/** What an admin may still change on a BUILT_IN tool: how it is governed, not what it is. */
export const builtInMutableFields = ['visibility', 'permission', 'budget', 'enabled'] as const;

export function specFromRegistration(input: z.output<typeof registerToolInputSchema>): ToolSpec {
  return {
    name: input.name,
    title: input.title,
    description: input.description,
    inputSchema: input.inputSchema as JsonSchema,
    outputSchema: (input.outputSchema as JsonSchema | null | undefined) ?? null,
    annotations: normalizeAnnotations(input.annotations),
    visibility: input.visibility ?? 'MODEL',
    permission: input.permission ?? 'ALWAYS_ALLOW',
    budget: normalizeBudget(input.budget),
    source: input.source,
    enabled: true,
  };
}

export function applyToolUpdate(spec: ToolSpec, update: z.output<typeof updateToolInputSchema>): ToolSpec {
  return {
    ...spec,
    title: update.title ?? spec.title,
    description: update.description ?? spec.description,
    inputSchema: (update.inputSchema as JsonSchema | undefined) ?? spec.inputSchema,
    outputSchema:
      update.outputSchema === undefined
        ? spec.outputSchema
        : ((update.outputSchema as JsonSchema | null) ?? null),
    annotations: update.annotations ? normalizeAnnotations(update.annotations) : spec.annotations,
    visibility: update.visibility ?? spec.visibility,
    permission: update.permission ?? spec.permission,
    budget: update.budget === undefined ? spec.budget : normalizeBudget(update.budget),
    enabled: update.enabled ?? spec.enabled,
  };
}
