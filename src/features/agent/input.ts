import { z } from 'zod';
import { createRunInputSchema } from '../../calls/index.js';
import { contextPresetSchema } from '../../model/context/preset.js';

export const DEFAULT_MAX_ROUNDS = 20;
export const MAX_ROUNDS_LIMIT = 500;
export const MAX_PROMPT_CHARS = 200_000;

/**
 * What starts a loop: an existing run (the caller's own, RUNNING, not already driven) or the fields
 * of a new one; the model connection; the preset the requests are assembled under; the task.
 */
export const startAgentRunInputSchema = z
  .object({
    runId: z.uuid().nullish(),
    run: createRunInputSchema.nullish(),
    connection: z.string().min(1).max(32),
    preset: contextPresetSchema.nullish(),
    presetName: z.string().min(1).max(100).nullish(),
    prompt: z
      .string()
      .max(MAX_PROMPT_CHARS)
      .refine((p) => p.trim() !== '', 'must not be empty'),
    maxRounds: z.number().int().min(1).max(MAX_ROUNDS_LIMIT).nullish(),
    maxTokens: z.number().int().min(1).nullish(),
  })
  .superRefine((input, ctx) => {
    if ((input.runId == null) === (input.run == null))
      ctx.addIssue({
        code: 'custom',
        path: ['runId'],
        message: 'give either runId or run, not both or neither',
      });
    if (input.preset != null && input.presetName != null)
      ctx.addIssue({
        code: 'custom',
        path: ['preset'],
        message: 'give either preset or presetName, not both',
      });
  });
export type StartAgentRunInput = z.input<typeof startAgentRunInputSchema>;
