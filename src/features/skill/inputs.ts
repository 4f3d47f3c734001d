import { z } from 'zod';
import type { TextSlice } from './rules/sections.js';
import { type SkillFile, type SkippedSkillFile, skillRuleEffects } from './rules/skill.js';

/** What callers hand the skill service and get back: inputs with their limits, and result shapes. */

export const DEFAULT_READ_CHARS_PER_CALL = 20_000;
export const DEFAULT_READ_CHARS_PER_RUN = 80_000;
const MAX_SKILL_FILE_BYTES = 2 * 1024 * 1024;
const MAX_SKILL_FILES = 500;

export interface SkillFolder {
  /** The folder name; when given, the skill's `name` must equal it. */
  folderName?: string | null;
  files: SkillFile[];
  /** Files of the folder the caller could not import; the model is told they are unavailable. */
  skipped?: SkippedSkillFile[] | null;
}

export const skillFolderSchema = z.object({
  folderName: z.string().trim().min(1).max(200).nullish(),
  files: z
    .array(z.object({ path: z.string().min(1).max(1000), content: z.string().max(MAX_SKILL_FILE_BYTES) }))
    .min(1)
    .max(MAX_SKILL_FILES),
  skipped: z
    .array(z.object({ path: z.string().min(1).max(1000), reason: z.string().trim().min(1).max(200) }))
    .max(MAX_SKILL_FILES)
    .nullish(),
});

/** Skill names plus `*` and `?`; the same glob rules as tool patterns. */
export const skillRuleInputSchema = z.object({
  id: z.uuid().nullish(),
  profileId: z.string().trim().min(1).max(200).nullish(),
  pattern: z.string().regex(/^[a-z0-9*?-]{1,64}$/, 'must be a skill name or a glob of a-z 0-9 - * ?'),
  effect: z.enum(skillRuleEffects),
  reason: z.string().trim().max(500).nullish(),
});
export type SkillRuleInput = z.input<typeof skillRuleInputSchema>;

export const skillReadInputSchema = z
  .object({
    name: z.string().min(1).max(64),
    path: z.string().min(1).max(1000).nullish(),
    section: z.string().trim().min(1).max(500).nullish(),
    fromLine: z.number().int().min(1).nullish(),
    toLine: z.number().int().min(1).nullish(),
    fromChar: z.number().int().min(0).nullish(),
    toChar: z.number().int().min(0).nullish(),
    maxChars: z.number().int().min(1).nullish(),
  })
  .superRefine((input, ctx) => {
    const modes = [
      input.section != null,
      input.fromLine != null || input.toLine != null,
      input.fromChar != null || input.toChar != null,
    ].filter(Boolean).length;
    if (modes > 1) {
      ctx.addIssue({ code: 'custom', message: 'choose one of section, fromLine/toLine or fromChar/toChar' });
    }
  });
export type SkillReadInput = z.input<typeof skillReadInputSchema>;

export interface SkillSummary {
  name: string;
  description: string;
  files: Array<{ path: string; chars: number }>;
  /** Files the import left out: the model sees that they exist and cannot be read. */
  unavailable: SkippedSkillFile[];
}

export interface SkillReadBudget {
  perCall: number;
  perRun: number;
}

export interface SkillReadResult extends TextSlice {
  ref: string;
  name: string;
  path: string;
  /** The heading path of the section read, when a section was asked for. */
  section: string[] | null;
  budget: { perCall: number; perRun: number; usedThisRun: number; leftThisRun: number };
}

export interface SkillReadScope {
  runId: string;
  callId: string;
  profileId: string | null;
}
