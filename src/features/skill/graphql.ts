import { z } from 'zod';
import { actorOf } from '../../core/auth.js';
import { builder, scopes } from '../../graphql/builder.js';
import { optionalId } from '../../graphql/ids.js';
import { skillRuleEffects } from './rules/skill.js';
import { type SkillRow, type SkillRuleRow, skillFolderSchema, skillRuleInputSchema } from './service.js';

const SkillFileType = builder
  .objectRef<{ skillName: string; path: string; chars: number }>('SkillFile')
  .implement({
    fields: (t) => ({
      path: t.exposeString('path'),
      chars: t.exposeInt('chars', {
        description: 'Characters (UTF-16 code units), the unit of skill.read budgets.',
      }),
      content: t.string({
        resolve: async (file, _args, ctx) =>
          (await ctx.services.skills.file(file.skillName, file.path))?.content ?? '',
      }),
    }),
  });

const SkillType = builder.objectRef<SkillRow>('Skill').implement({
  description: 'An imported Agent Skills folder.',
  fields: (t) => ({
    name: t.exposeID('name'),
    description: t.exposeString('description'),
    license: t.exposeString('license', { nullable: true }),
    compatibility: t.exposeString('compatibility', { nullable: true }),
    allowedTools: t.exposeStringList('allowedTools'),
    frontMatter: t.expose('frontMatter', { type: 'JSON' }),
    warnings: t.stringList({ resolve: (skill) => skill.warnings.map((warning) => warning.message) }),
    importedBy: t.exposeString('importedBy'),
    importedAt: t.expose('importedAt', { type: 'DateTime' }),
    files: t.field({
      type: [SkillFileType],
      resolve: async (skill, _args, ctx) =>
        (await ctx.services.skills.files(skill.name)).map((file) => ({ skillName: skill.name, ...file })),
    }),
  }),
});

const SkillRuleEffectEnum = builder.enumType('SkillRuleEffect', { values: skillRuleEffects });

const SkillRuleType = builder.objectRef<SkillRuleRow>('SkillRule').implement({
  description:
    'Which skills runs of a profile see: VISIBLE rules show, DENY rules hide, deny wins; no rule, no skill.',
  fields: (t) => ({
    id: t.exposeID('id'),
    profileId: t.exposeString('profileId', { nullable: true, description: 'Null: every profile.' }),
    pattern: t.exposeString('pattern', { description: 'A skill name or a glob (`*`, `?`).' }),
    effect: t.expose('effect', { type: SkillRuleEffectEnum }),
    reason: t.exposeString('reason', { nullable: true }),
  }),
});

const SkillFileInput = builder.inputType('SkillFileInput', {
  fields: (t) => ({
    path: t.string({ required: true, description: 'Relative to the skill folder, `/`-separated.' }),
    content: t.string({ required: true }),
  }),
});

const SkillFolderInput = builder.inputType('SkillFolderInput', {
  fields: (t) => ({
    folderName: t.string({ description: "When given, the skill's name must equal it." }),
    files: t.field({ type: [SkillFileInput], required: true }),
  }),
});

const SkillRuleInput = builder.inputType('SkillRuleInput', {
  fields: (t) => ({
    id: t.id({ description: 'Set to replace an existing rule.' }),
    profileId: t.string({ description: 'Omit for a rule that applies to every profile.' }),
    pattern: t.string({ required: true }),
    effect: t.field({ type: SkillRuleEffectEnum, required: true }),
    reason: t.string(),
  }),
});

builder.queryFields((t) => ({
  skills: t.field({
    type: [SkillType],
    authScopes: scopes.readers,
    resolve: (_root, _args, ctx) => ctx.services.skills.list(),
  }),
  skill: t.field({
    type: SkillType,
    nullable: true,
    authScopes: scopes.readers,
    args: { name: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.skills.get(args.name),
  }),
  skillRules: t.field({
    type: [SkillRuleType],
    description: 'Rules for every profile, plus those of profileId when given.',
    authScopes: scopes.readers,
    args: { profileId: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.skills.rules(args.profileId),
  }),
  visibleSkills: t.field({
    type: [SkillType],
    description: 'The skills skill.list shows to runs of this profile (null: runs without a profile).',
    authScopes: scopes.readers,
    args: { profileId: t.arg.string() },
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
      'Imports Agent Skills folders (SKILL.md plus any files), replacing skills of the same name. A malformed skill rejects the whole import with a message naming the file and the problem.',
    authScopes: scopes.admin,
    args: {
      skills: t.arg({
        type: [SkillFolderInput],
        required: true,
        validate: { schema: z.array(skillFolderSchema).min(1).max(100) },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.skills.importSkills(args.skills, actorOf(ctx.principal)),
  }),
  setSkillRule: t.field({
    type: SkillRuleType,
    authScopes: scopes.admin,
    args: {
      input: t.arg({ type: SkillRuleInput, required: true, validate: { schema: skillRuleInputSchema } }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.skills.setRule({ ...args.input, id: optionalId(args.input.id) }, actorOf(ctx.principal)),
  }),
  removeSkillRule: t.boolean({
    authScopes: scopes.admin,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.skills.removeRule(String(args.id)),
  }),
}));
