import { z } from 'zod';
import { badInput } from '../../core/errors.js';
import { overflowRules, toolResultForms } from './types.js';

/** Components a preset can place; SYSTEM is the preset's own `system` text and always comes first. */
export const presetComponentKinds = [
  'CHARACTER',
  'CHAT_HISTORY',
  'WORLD_INFO',
  'WORKSPACE_FILES',
  'TOOL_RESULTS',
] as const;

const MAX_TOKEN_BUDGET = 2_000_000;

const budget = z.number().int().min(1).max(MAX_TOKEN_BUDGET);

const presetComponentSchema = z
  .object({
    kind: z.enum(presetComponentKinds),
    tokenBudget: budget,
    priority: z.number().int().min(0).max(1000).nullish(),
    overflow: z.enum(overflowRules).nullish(),
    /** A required component is never dropped: DROP is refused for it, and over the total budget it stays. */
    required: z.boolean().nullish(),
    /** CHAT_HISTORY: how many of the newest messages to read (default 50). */
    maxMessages: z.number().int().min(1).max(200).nullish(),
    /** WORKSPACE_FILES: files, or folders ending in `/`, of the run's workspace. */
    paths: z.array(z.string().min(1).max(500)).max(100).nullish(),
    /** TOOL_RESULTS: the tools' output as it came, or a short summary of each (default RAW). */
    form: z.enum(toolResultForms).nullish(),
  })
  .superRefine((c, ctx) => {
    if (c.maxMessages != null && c.kind !== 'CHAT_HISTORY')
      ctx.addIssue({ code: 'custom', path: ['maxMessages'], message: 'only for CHAT_HISTORY' });
    if (c.paths != null && c.kind !== 'WORKSPACE_FILES')
      ctx.addIssue({ code: 'custom', path: ['paths'], message: 'only for WORKSPACE_FILES' });
    if (c.kind === 'WORKSPACE_FILES' && (c.paths ?? []).length === 0)
      ctx.addIssue({ code: 'custom', path: ['paths'], message: 'WORKSPACE_FILES needs at least one path' });
    if (c.form != null && c.kind !== 'TOOL_RESULTS')
      ctx.addIssue({ code: 'custom', path: ['form'], message: 'only for TOOL_RESULTS' });
    if (c.overflow === 'DROP' && c.required === true)
      ctx.addIssue({ code: 'custom', path: ['overflow'], message: 'a required component cannot be dropped' });
  });

/**
 * The order of `components` is the order in the prompt. Tool results are shown when the list has
 * a TOOL_RESULTS component, and not otherwise.
 */
export const contextPresetSchema = z
  .object({
    name: z.string().trim().min(1).max(100).nullish(),
    system: z.string().max(200_000).nullish(),
    totalBudget: budget.nullish(),
    components: z.array(presetComponentSchema).max(presetComponentKinds.length),
  })
  .superRefine((p, ctx) => {
    const seen = new Set<string>();
    p.components.forEach((c, i) => {
      if (seen.has(c.kind))
        ctx.addIssue({ code: 'custom', path: ['components', i, 'kind'], message: `${c.kind} appears twice` });
      seen.add(c.kind);
    });
  });

export type ContextPreset = z.output<typeof contextPresetSchema>;

/** Named presets every deployment has. */
export const builtInPresets: Readonly<Record<string, ContextPreset>> = {
  default: {
    name: 'default',
    system: null,
    totalBudget: 16_000,
    components: [
      { kind: 'CHARACTER', tokenBudget: 2_000, priority: 45, overflow: 'TRUNCATE' },
      { kind: 'WORLD_INFO', tokenBudget: 2_000, priority: 40, overflow: 'TRUNCATE' },
      { kind: 'CHAT_HISTORY', tokenBudget: 4_000, priority: 60, overflow: 'TRUNCATE', maxMessages: 50 },
      { kind: 'TOOL_RESULTS', tokenBudget: 8_000, priority: 80, overflow: 'SUMMARIZE', form: 'RAW' },
    ],
  },
  summaries: {
    name: 'summaries',
    system: null,
    totalBudget: 8_000,
    components: [
      { kind: 'CHARACTER', tokenBudget: 1_000, priority: 45, overflow: 'TRUNCATE' },
      { kind: 'WORLD_INFO', tokenBudget: 1_000, priority: 40, overflow: 'DROP' },
      { kind: 'CHAT_HISTORY', tokenBudget: 3_000, priority: 60, overflow: 'TRUNCATE', maxMessages: 30 },
      { kind: 'TOOL_RESULTS', tokenBudget: 3_000, priority: 80, overflow: 'TRUNCATE', form: 'SUMMARY' },
    ],
  },
  'no-tool-results': {
    name: 'no-tool-results',
    system: null,
    totalBudget: 8_000,
    components: [
      { kind: 'CHARACTER', tokenBudget: 2_000, priority: 45, overflow: 'TRUNCATE' },
      { kind: 'WORLD_INFO', tokenBudget: 2_000, priority: 40, overflow: 'TRUNCATE' },
      { kind: 'CHAT_HISTORY', tokenBudget: 6_000, priority: 60, overflow: 'TRUNCATE', maxMessages: 50 },
    ],
  },
};

export function namedPreset(name: string): ContextPreset {
  const preset = Object.hasOwn(builtInPresets, name) ? builtInPresets[name] : undefined;
  if (!preset) {
    throw badInput(
      `no context preset "${name}"; built-in presets: ${Object.keys(builtInPresets).join(', ')}`,
      {
        field: 'presetName',
      },
    );
  }
  return preset;
}
