import { z } from 'zod';
import { actorOf } from '../../core/auth.js';
import { builder, scopes } from '../../graphql/builder.js';
import { optionalId } from '../../graphql/ids.js';
import { skillFolderSchema, skillRuleInputSchema } from './inputs.js';
import { type SkippedSkillFile, skillRuleEffects } from './rules/skill.js';
import type { SkillRow, SkillRuleRow } from './service.js';

const SkillFileType = builder
  .objectRef<{ skillName: string; path: string; chars: number }>('SkillFile')
  .implement({
    description: 'One file of a skill folder.',
    fields: (t) => ({
      path: t.exposeString('path', {
        description: 'Relative to the skill folder, `/`-separated (`SKILL.md` for the main file).',
      }),
      chars: t.exposeInt('chars', {
        description:
          'Characters (UTF-16 code units) of `content`, a leading BOM dropped at import: the unit of skill.read ranges and budgets.',
      }),
      content: t.string({
        description: 'The whole file.',
        resolve: async (file, _args, ctx) =>
          (await ctx.services.skills.file(file.skillName, file.path))?.content ?? '',
      }),
    }),
  });

const SkippedSkillFileType = builder.objectRef<SkippedSkillFile>('SkippedSkillFile').implement({
  description: 'A file of a skill folder the import left out.',
  fields: (t) => ({
    path: t.exposeString('path', { description: 'Relative to the skill folder, `/`-separated.' }),
    reason: t.exposeString('reason', { description: 'Why it was left out, e.g. `not UTF-8 text`.' }),
  }),
});

const SkippedSkillFileInput = builder.inputType('SkippedSkillFileInput', {
  description: 'A file of the folder the client did not send, and why.',
  fields: (t) => ({
    path: t.string({ required: true, description: 'Relative to the skill folder, `/`-separated.' }),
    reason: t.string({ required: true, description: 'Why, e.g. `not UTF-8 text` or `a PDF, not text`.' }),
  }),
});

const SkillType = builder.objectRef<SkillRow>('Skill').implement({
  description: 'An imported Agent Skills folder.',
  fields: (t) => ({
    name: t.exposeID('name', { description: 'The skill name from its front matter.' }),
    description: t.exposeString('description', {
      description: 'What the skill is for, from its front matter; skill.list shows it.',
    }),
    license: t.exposeString('license', {
      description: '`license` from the front matter; null when absent.',
      nullable: true,
    }),
    compatibility: t.exposeString('compatibility', {
      description: '`compatibility` from the front matter; null when absent.',
      nullable: true,
    }),
    allowedTools: t.exposeStringList('allowedTools', {
      description: '`allowed-tools` from the front matter; empty when absent.',
    }),
    frontMatter: t.expose('frontMatter', {
      description: 'The whole front matter of SKILL.md.',
      type: 'JSON',
    }),
    warnings: t.stringList({
      description:
        'What in the skill breaks the Agent Skills spec without stopping the import (such as an over-long description).',
      resolve: (skill) => skill.warnings.map((warning) => warning.message),
    }),
    skippedFiles: t.field({
      type: [SkippedSkillFileType],
      description:
        'Files of the folder that were not imported (not UTF-8 text, a PDF, not a regular file); skill.list shows them as unavailable and skill.read says so.',
      resolve: (skill) => skill.skippedFiles,
    }),
    importedBy: t.exposeString('importedBy', { description: 'The actor that imported it.' }),
    importedAt: t.expose('importedAt', { description: 'When it was imported.', type: 'DateTime' }),
    files: t.field({
      description: 'Every file of the folder, SKILL.md included.',
      type: [SkillFileType],
      resolve: async (skill, _args, ctx) =>
        (await ctx.services.skills.files(skill.name)).map((file) => ({ skillName: skill.name, ...file })),
    }),
  }),
});

const SkillRuleEffectEnum = builder.enumType('SkillRuleEffect', {
  description: 'VISIBLE shows matching skills; DENY hides them, whatever else matches.',
  values: skillRuleEffects,
});

const SkillRuleType = builder.objectRef<SkillRuleRow>('SkillRule').implement({
  description:
    'Which skills runs of a profile see: VISIBLE rules show, DENY rules hide, deny wins; no rule, no skill.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description: 'The rule id; pass it to setSkillRule to replace the rule, or to removeSkillRule.',
    }),
    profileId: t.exposeString('profileId', { nullable: true, description: 'Null: every profile.' }),
    pattern: t.exposeString('pattern', { description: 'A skill name or a glob (`*`, `?`).' }),
    effect: t.expose('effect', { description: 'Show or hide matching skills.', type: SkillRuleEffectEnum }),
    reason: t.exposeString('reason', {
      description: 'Why the rule exists; null when none was given.',
      nullable: true,
    }),
  }),
});

const SkillFileInput = builder.inputType('SkillFileInput', {
  description: 'One file of a skill folder.',
  fields: (t) => ({
    path: t.string({ required: true, description: 'Relative to the skill folder, `/`-separated.' }),
    content: t.string({ description: 'The whole file, as text.', required: true }),
  }),
});

const SkillFolderInput = builder.inputType('SkillFolderInput', {
  description: 'An Agent Skills folder: SKILL.md (front matter and body) plus any other files.',
  fields: (t) => ({
    folderName: t.string({ description: "When given, the skill's name must equal it." }),
    files: t.field({
      description: 'Every file of the folder, SKILL.md included.',
      type: [SkillFileInput],
      required: true,
    }),
    skipped: t.field({
      description: 'Files of the folder not sent (binary, PDF, …): the model is told they are unavailable.',
      type: [SkippedSkillFileInput],
    }),
  }),
});

const SkillRuleInput = builder.inputType('SkillRuleInput', {
  description: 'A skill rule to create or replace.',
  fields: (t) => ({
    id: t.id({ description: 'Set to replace an existing rule.' }),
    profileId: t.string({ description: 'Omit for a rule that applies to every profile.' }),
    pattern: t.string({ description: 'A skill name or a glob (`*`, `?`).', required: true }),
    effect: t.field({
      description: 'Show or hide matching skills.',
      type: SkillRuleEffectEnum,
      required: true,
    }),
    reason: t.string({ description: 'Why the rule exists.' }),
  }),
});

builder.queryFields((t) => ({
  skills: t.field({
    description: 'Every imported skill, by name. Every role but EXTENSION.',
    type: [SkillType],
    authScopes: scopes.readers,
    resolve: (_root, _args, ctx) => ctx.services.skills.list(),
  }),
  skill: t.field({
    description: 'One skill by name; null when there is none. Every role but EXTENSION.',
    type: SkillType,
    nullable: true,
    authScopes: scopes.readers,
    args: { name: t.arg.string({ description: 'The skill name.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.skills.get(args.name),
  }),
  skillRules: t.field({
    type: [SkillRuleType],
    description: 'Rules for every profile, plus those of profileId when given. Every role but EXTENSION.',
    authScopes: scopes.readers,
    args: { profileId: t.arg.string({ description: 'A profile whose own rules to include.' }) },
    resolve: (_root, args, ctx) => ctx.services.skills.rules(args.profileId),
  }),
  visibleSkills: t.field({
    type: [SkillType],
    description:
      'The skills skill.list shows to runs of this profile (null: runs without a profile). Every role but EXTENSION.',
    authScopes: scopes.readers,
    args: { profileId: t.arg.string({ description: 'The profile; absent for runs without one.' }) },
    resolve: async (_root, args, ctx) => {
      const names = new Set(
        (await ctx.services.skills.visible(args.profileId ?? null)).map((skill) => skill.name),
      );
      return (await ctx.services.skills.list()).filter((skill) => names.has(skill.name));
    },
  }),
}));

builder.mutationFields((t) => ({
  importSkills: t.field({
    type: [SkillType],
    description:
      'Imports Agent Skills folders (SKILL.md plus any files), replacing skills of the same name. A malformed skill rejects the whole import with a message naming the file and the problem. ADMIN only.',
    authScopes: scopes.admin,
    args: {
      skills: t.arg({
        description: 'The folders, 1 to 100.',
        type: [SkillFolderInput],
        required: true,
        validate: { schema: z.array(skillFolderSchema).min(1).max(100) },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.skills.importSkills(args.skills, actorOf(ctx.principal)),
  }),
  setSkillRule: t.field({
    description: 'Creates a skill rule, or replaces the rule with the given id. ADMIN only.',
    type: SkillRuleType,
    authScopes: scopes.admin,
    args: {
      input: t.arg({
        description: 'The rule.',
        type: SkillRuleInput,
        required: true,
        validate: { schema: skillRuleInputSchema },
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.skills.setRule({ ...args.input, id: optionalId(args.input.id) }, actorOf(ctx.principal)),
  }),
  removeSkillRule: t.boolean({
    description: 'Deletes a skill rule; true when done. ADMIN only.',
    authScopes: scopes.admin,
    args: { id: t.arg.id({ description: 'The rule to delete.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.skills.removeRule(String(args.id)),
  }),
}));
