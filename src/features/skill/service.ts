import { and, asc, eq, isNull, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import { notFound } from '../../core/errors.js';
import { parseInput } from '../../core/parse-input.js';
import { patternMatches } from '../../core/policy-pattern.js';
import type { ErrorCodeOfKind } from '../../core/tool-error-codes.js';
import { RecoverableToolError } from '../../core/tool-errors.js';
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/tx.js';
import {
  type SkillFolder,
  type SkillReadBudget,
  type SkillReadInput,
  type SkillReadResult,
  type SkillReadScope,
  type SkillRuleInput,
  type SkillSummary,
  skillFolderSchema,
  skillReadInputSchema,
  skillRuleInputSchema,
} from './inputs.js';
import { findSections, readChars, readLines, readSection, splitSections } from './rules/sections.js';
import { type ParsedSkill, parseSkill, SKILL_FILE, SkillError } from './rules/skill.js';
import { skillFiles, skillReads, skillRules, skills } from './tables.js';

export type SkillRow = typeof skills.$inferSelect;
export type SkillRuleRow = typeof skillRules.$inferSelect;

function budgetError(
  code: ErrorCodeOfKind<'RECOVERABLE'>,
  message: string,
  budget: SkillReadResult['budget'],
): RecoverableToolError {
  return new RecoverableToolError(code, message, { budget });
}

export class SkillService {
  constructor(private readonly db: Db) {}

  list(): Promise<SkillRow[]> {
    return this.db.select().from(skills).orderBy(asc(skills.name));
  }

  async get(name: string): Promise<SkillRow | null> {
    const [row] = await this.db.select().from(skills).where(eq(skills.name, name)).limit(1);
    return row ?? null;
  }

  files(name: string) {
    return this.db
      .select({ path: skillFiles.path, chars: skillFiles.chars })
      .from(skillFiles)
      .where(eq(skillFiles.skillName, name))
      .orderBy(asc(skillFiles.path));
  }

  async file(name: string, path: string): Promise<{ path: string; chars: number; content: string } | null> {
    const [row] = await this.db
      .select({ path: skillFiles.path, chars: skillFiles.chars, content: skillFiles.content })
      .from(skillFiles)
      .where(and(eq(skillFiles.skillName, name), eq(skillFiles.path, path)))
      .limit(1);
    return row ?? null;
  }

  /**
   * Validates every folder first, then writes them all in one transaction: a malformed skill
   * rejects the whole import with a message naming the file and the problem. A skill that exists
   * already is replaced, files and all.
   */
  async importSkills(raw: SkillFolder[], actor: string): Promise<SkillRow[]> {
    const folders = raw.map((folder) => parseInput(skillFolderSchema, folder));
    const parsed: ParsedSkill[] = folders.map((folder) =>
      parseSkill(folder.files, folder.folderName ? { folderName: folder.folderName } : {}),
    );
    const seen = new Set<string>();
    for (const skill of parsed) {
      if (seen.has(skill.name)) {
        throw new SkillError(
          'DUPLICATE_PATH',
          `${skill.name}/${SKILL_FILE}`,
          `two folders define the skill "${skill.name}"`,
        );
      }
      seen.add(skill.name);
    }
    return this.db.transaction(async (tx) => {
      const saved: SkillRow[] = [];
      for (const skill of parsed) {
        await tx.delete(skills).where(eq(skills.name, skill.name));
        const [row] = await tx
          .insert(skills)
          .values({
            name: skill.name,
            description: skill.description,
            license: skill.license,
            compatibility: skill.compatibility,
            allowedTools: skill.allowedTools,
            frontMatter: skill.frontMatter,
            warnings: skill.warnings,
            skippedFiles: folders[parsed.indexOf(skill)]!.skipped ?? [],
            importedBy: actor,
          })
          .returning();
        await tx.insert(skillFiles).values(
          skill.files.map((file) => ({
            skillName: skill.name,
            path: file.path,
            content: file.content,
            chars: file.content.length,
          })),
        );
        saved.push(row!);
      }
      return saved;
    });
  }

  async remove(name: string): Promise<boolean> {
    const deleted = await this.db
      .delete(skills)
      .where(eq(skills.name, name))
      .returning({ name: skills.name });
    if (deleted.length === 0) throw notFound(`no skill ${name}`);
    return true;
  }

  rules(profileId?: string | null): Promise<SkillRuleRow[]> {
    const scope = profileId
      ? or(isNull(skillRules.profileId), eq(skillRules.profileId, profileId))
      : undefined;
    return this.db
      .select()
      .from(skillRules)
      .where(scope)
      .orderBy(asc(skillRules.createdAt), asc(skillRules.id));
  }

  async setRule(raw: SkillRuleInput, actor: string): Promise<SkillRuleRow> {
    const input = parseInput(skillRuleInputSchema, raw);
    const values = {
      profileId: input.profileId ?? null,
      pattern: input.pattern,
      effect: input.effect,
      reason: input.reason ?? null,
      createdBy: actor,
    };
    if (input.id) {
      const [row] = await this.db
        .update(skillRules)
        .set(values)
        .where(eq(skillRules.id, input.id))
        .returning();
      if (!row) throw notFound(`no skill rule ${input.id}`);
      return row;
    }
    const [row] = await this.db.insert(skillRules).values(values).returning();
    return row!;
  }

  async removeRule(id: string): Promise<boolean> {
    if (!z.uuid().safeParse(id).success) throw notFound(`no skill rule ${id}`);
    const deleted = await this.db
      .delete(skillRules)
      .where(eq(skillRules.id, id))
      .returning({ id: skillRules.id });
    if (deleted.length === 0) throw notFound(`no skill rule ${id}`);
    return true;
  }

  /** Rules for every profile plus the profile's own: visible when a VISIBLE rule matches and no DENY rule does. */
  async visible(profileId: string | null): Promise<SkillSummary[]> {
    const [all, rules] = await Promise.all([this.list(), this.rules(profileId)]);
    const applicable = rules.filter((rule) => rule.profileId === null || rule.profileId === profileId);
    const allowed = all.filter((skill) => {
      const matching = applicable.filter((rule) => patternMatches(rule.pattern, skill.name));
      return (
        matching.some((rule) => rule.effect === 'VISIBLE') && !matching.some((rule) => rule.effect === 'DENY')
      );
    });
    if (allowed.length === 0) return [];
    const files = await this.db
      .select({ skillName: skillFiles.skillName, path: skillFiles.path, chars: skillFiles.chars })
      .from(skillFiles)
      .orderBy(asc(skillFiles.skillName), asc(skillFiles.path));
    return allowed.map((skill) => ({
      name: skill.name,
      description: skill.description,
      files: files
        .filter((file) => file.skillName === skill.name)
        .map(({ path, chars }) => ({ path, chars })),
      unavailable: skill.skippedFiles,
    }));
  }

  /**
   * skill.read: one file of a visible skill, whole or by section or range, within the per-call and
   * per-run budgets. The run's usage is the sum of the `skill_reads` rows of its calls, written in
   * the same transaction as the check and under a per-run lock, so concurrent calls of one run
   * cannot both spend the same remainder. A call that runs again (after a lost lease) replaces its
   * own row instead of counting twice.
   */
  async read(raw: SkillReadInput, scope: SkillReadScope, limits: SkillReadBudget): Promise<SkillReadResult> {
    const input = parseInput(skillReadInputSchema, raw);
    const path = input.path ?? SKILL_FILE;
    const visible = await this.visible(scope.profileId);
    const skill = visible.find((candidate) => candidate.name === input.name);
    if (!skill) {
      const names = visible.map((candidate) => candidate.name);
      throw new RecoverableToolError(
        'skill_not_found',
        `No skill named "${input.name}" is available to you. ${names.length > 0 ? `Available: ${names.join(', ')}.` : 'No skills are available in this run.'}`,
      );
    }
    const file = await this.file(skill.name, path);
    const skipped = skill.unavailable.find((candidate) => candidate.path === path);
    if (!file && skipped) {
      throw new RecoverableToolError(
        'file_not_found',
        `The skill ${skill.name} has a file "${path}", but it is unavailable: it was not imported (${skipped.reason}). Go on without it.`,
      );
    }
    if (!file) {
      throw new RecoverableToolError(
        'file_not_found',
        `The skill ${skill.name} has no file "${path}". Its files: ${skill.files.map((f) => f.path).join(', ')}.`,
      );
    }

    return this.db.transaction(async (tx) => {
      await tx.execute(
        sql`select pg_advisory_xact_lock(hashtextextended(${`skill_reads:${scope.runId}`}, 0))`,
      );
      const [usage] = rowsOf<{ used: number }>(
        await tx.execute(sql`
          select coalesce(sum(chars), 0)::int as used from skill_reads
          where run_id = ${scope.runId} and call_id <> ${scope.callId}`),
      );
      const used = usage?.used ?? 0;
      const left = Math.max(limits.perRun - used, 0);
      const budget = { perCall: limits.perCall, perRun: limits.perRun, usedThisRun: used, leftThisRun: left };
      if (input.maxChars != null && input.maxChars > limits.perCall) {
        throw budgetError(
          'budget_exceeded',
          `maxChars ${input.maxChars} is over the per-call limit of ${limits.perCall} characters. Ask for at most ${Math.min(limits.perCall, left)} (${left} are left for this run).`,
          budget,
        );
      }
      if (left === 0) {
        throw budgetError(
          'budget_exhausted',
          `This run has used its whole skill reading budget of ${limits.perRun} characters (0 left). Continue with what you have read.`,
          budget,
        );
      }
      const want = input.maxChars ?? limits.perCall;
      const slice = this.select(file.content, input, want);
      if (slice.text.length > left) {
        throw budgetError(
          'budget_exceeded',
          `This read would return ${slice.text.length} characters but only ${left} of this run's ${limits.perRun} are left. Ask for a smaller range or set maxChars to at most ${left}.`,
          budget,
        );
      }
      await tx
        .insert(skillReads)
        .values({
          callId: scope.callId,
          runId: scope.runId,
          skillName: skill.name,
          path,
          chars: slice.text.length,
        })
        .onConflictDoUpdate({
          target: skillReads.callId,
          set: { chars: slice.text.length, skillName: skill.name, path },
        });
      const spent = used + slice.text.length;
      return {
        ...slice,
        ref: `skill:${skill.name}/${path}#L${slice.startLine}-L${slice.endLine}`,
        name: skill.name,
        path,
        section: slice.section,
        budget: { ...budget, usedThisRun: spent, leftThisRun: Math.max(limits.perRun - spent, 0) },
      };
    });
  }

  private select(content: string, input: z.output<typeof skillReadInputSchema>, maxChars: number) {
    if (input.section != null) {
      const sections = splitSections(content);
      const [section] = findSections(sections, input.section);
      if (!section) {
        const titles = sections
          .slice(0, 60)
          .map((candidate) => `${'#'.repeat(candidate.level)} ${candidate.title}`);
        throw new RecoverableToolError(
          'section_not_found',
          `No heading "${input.section}" in this file. Headings: ${titles.length > 0 ? titles.join('; ') : '(none)'}${sections.length > 60 ? '; …' : ''}.`,
        );
      }
      return { ...readSection(content, section, maxChars), section: section.path };
    }
    if (input.fromLine != null || input.toLine != null) {
      return {
        ...readLines(content, input.fromLine ?? 1, input.toLine ?? undefined, maxChars),
        section: null,
      };
    }
    return { ...readChars(content, input.fromChar ?? 0, input.toChar ?? undefined, maxChars), section: null };
  }
}
