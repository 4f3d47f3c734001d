import { index, integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from '../../db/columns.js';
import { jsonb } from '../../db/jsonb.js';
import { type SkillWarning, type SkippedSkillFile, skillRuleEffects } from './rules/skill.js';

/** Agent Skills (issue 7): folders, their visibility rules and the durable per-run read budget. */

export const skills = pgTable('skills', {
  name: text('name').primaryKey(),
  description: text('description').notNull(),
  license: text('license'),
  compatibility: text('compatibility'),
  allowedTools: jsonb('allowed_tools').$type<string[]>().notNull(),
  frontMatter: jsonb('front_matter').$type<Record<string, unknown>>().notNull(),
  warnings: jsonb('warnings').$type<SkillWarning[]>().notNull(),
  /** Files of the folder that were not imported; skill.list and skill.read say they are unavailable. */
  skippedFiles: jsonb('skipped_files').$type<SkippedSkillFile[]>().notNull().default([]),
  importedBy: text('imported_by').notNull(),
  importedAt: createdAt(),
});

export const skillFiles = pgTable(
  'skill_files',
  {
    skillName: text('skill_name')
      .notNull()
      .references(() => skills.name, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    content: text('content').notNull(),
    /** Characters (UTF-16 code units, a leading BOM dropped), the unit of skill.read ranges and budgets. */
    chars: integer('chars').notNull(),
  },
  (t) => [primaryKey({ columns: [t.skillName, t.path] })],
);

/**
 * Which skills a profile's runs may see. A rule without a profile applies to every run. A skill is
 * visible when a VISIBLE rule matches it and no DENY rule does (deny wins; nothing is visible
 * without a rule, like tools).
 */
export const skillRules = pgTable(
  'skill_rules',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    profileId: text('profile_id'),
    pattern: text('pattern').notNull(),
    effect: text('effect', { enum: skillRuleEffects }).notNull(),
    reason: text('reason'),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('skill_rules_profile_idx').on(t.profileId)],
);

/** Characters skill.read returned per call: the per-run budget is their sum, durable across restarts. */
export const skillReads = pgTable(
  'skill_reads',
  {
    callId: uuid('call_id').primaryKey(),
    runId: uuid('run_id').notNull(),
    skillName: text('skill_name').notNull(),
    path: text('path').notNull(),
    chars: integer('chars').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('skill_reads_run_idx').on(t.runId)],
);
