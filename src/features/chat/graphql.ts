import { resolveCursorConnection } from '@pothos/plugin-relay';
import { z } from 'zod';
import { actorOf } from '../../core/auth.js';
import { badInput } from '../../core/errors.js';
import { type ActivationEntrySnapshot, skillRuleEffects } from '../../db/schema.js';
import { builder, scopes } from '../../graphql/builder.js';
import {
  type SkillRow,
  type SkillRuleRow,
  skillFolderSchema,
  skillRuleInputSchema,
} from '../skill/service.js';
import {
  type ActivationRow,
  computeActivationInputSchema,
  importLorebookInputSchema,
  type LorebookEntryRow,
  type LorebookRow,
  positionName,
  recordActivationInputSchema,
} from '../worldinfo/service.js';
import type { ChatRole } from './rules/jsonl.js';
import {
  type ChatRow,
  chatIdSchema,
  chatSearchInputSchema,
  messageRef,
  type SearchHit,
  type SearchResult,
} from './service.js';

const ChatRoleEnum = builder.enumType('ChatRole', {
  values: {
    USER: { value: 'user' as const },
    ASSISTANT: { value: 'assistant' as const },
    SYSTEM: {
      value: 'system' as const,
      description: 'Narrator and hidden messages, and non-standard lines.',
    },
  },
});

interface MessageRow {
  chatId: string;
  index: number;
  role: ChatRole;
  name: string;
  text: string;
  isUser: boolean;
  isSystem: boolean;
  nonStandard: boolean;
  sendDate: unknown;
  sentAt: Date | null;
  raw: string;
}

const ChatMessageType = builder.objectRef<MessageRow>('ChatMessage').implement({
  description: 'One line of a SillyTavern chat after the header.',
  fields: (t) => ({
    chatId: t.exposeString('chatId'),
    index: t.exposeInt('index', { description: "Position in SillyTavern's chat array (the message id)." }),
    ref: t.string({ resolve: (message) => messageRef(message.chatId, message.index) }),
    role: t.expose('role', { type: ChatRoleEnum }),
    name: t.exposeString('name'),
    text: t.exposeString('text', { description: '`mes`, or the `system` text of a non-standard line.' }),
    isUser: t.exposeBoolean('isUser'),
    isSystem: t.exposeBoolean('isSystem'),
    nonStandard: t.exposeBoolean('nonStandard', {
      description: 'A line without `mes`, such as a hand-written {"system": …}.',
    }),
    sendDate: t.field({
      type: 'JSON',
      nullable: true,
      description: '`send_date` as stored.',
      resolve: (m) => m.sendDate ?? null,
    }),
    sentAt: t.expose('sentAt', { type: 'DateTime', nullable: true }),
    raw: t.field({
      type: 'JSON',
      description: 'The whole line as imported, unknown fields included.',
      resolve: (message) => JSON.parse(message.raw),
    }),
  }),
});

const ChatType = builder.objectRef<ChatRow>('Chat').implement({
  description: 'An imported SillyTavern chat file.',
  fields: (t) => ({
    id: t.exposeID('id'),
    fileName: t.exposeString('fileName', { nullable: true }),
    headerShape: t.exposeString('headerShape', {
      description: 'modern, placeholder (newer ST) or legacy (TavernAI).',
    }),
    userName: t.exposeString('userName', { nullable: true }),
    characterName: t.exposeString('characterName', { nullable: true }),
    createDate: t.expose('createDate', { type: 'DateTime', nullable: true }),
    header: t.field({ type: 'JSON', resolve: (chat) => JSON.parse(chat.header) }),
    messageCount: t.exposeInt('messageCount'),
    byteSize: t.exposeInt('byteSize', {
      description: 'UTF-8 bytes of the imported file; an export has the same.',
    }),
    sha256: t.exposeString('sha256', { description: 'Of the imported file; an export has the same.' }),
    importedBy: t.exposeString('importedBy'),
    importedAt: t.expose('importedAt', { type: 'DateTime' }),
    messages: t.connection({
      type: ChatMessageType,
      description: 'In index order.',
      args: { role: t.arg({ type: ChatRoleEnum }) },
      resolve: (chat, args, ctx) =>
        resolveCursorConnection<Promise<MessageRow[]>>(
          { args, toCursor: (message) => String(message.index), defaultSize: 50, maxSize: 500 },
          ({ after, before, limit, inverted }) =>
            ctx.services.chats.messagesPage(chat.id, {
              after: after == null ? null : indexCursor(after),
              before: before == null ? null : indexCursor(before),
              role: args.role ?? null,
              limit,
              inverted,
            }),
        ),
    }),
  }),
});

function indexCursor(cursor: string): number {
  if (!/^\d{1,9}$/.test(cursor)) throw badInput(`not a message cursor: ${cursor}`);
  return Number(cursor);
}

const ChatSearchHitType = builder.objectRef<SearchHit>('ChatSearchHit').implement({
  fields: (t) => ({
    ref: t.exposeString('ref'),
    index: t.exposeInt('index'),
    role: t.expose('role', { type: ChatRoleEnum }),
    name: t.exposeString('name'),
    sentAt: t.exposeString('sentAt', { nullable: true }),
    score: t.exposeInt('score'),
    snippet: t.exposeString('snippet'),
    snippetStart: t.exposeInt('snippetStart'),
    chars: t.exposeInt('chars'),
  }),
});

const ChatSearchResultType = builder.objectRef<SearchResult>('ChatSearchResult').implement({
  fields: (t) => ({
    chatId: t.exposeString('chatId'),
    terms: t.exposeStringList('terms'),
    matched: t.exposeInt('matched'),
    capped: t.exposeBoolean('capped', {
      description: 'More messages match than are ranked; narrow the query.',
    }),
    hits: t.expose('hits', { type: [ChatSearchHitType] }),
  }),
});

const ChatSearchInput = builder.inputType('ChatSearchInput', {
  fields: (t) => ({
    query: t.string({
      required: true,
      description: 'Terms separated by spaces; every term must occur (substring, any case).',
    }),
    roles: t.field({ type: [ChatRoleEnum] }),
    fromIndex: t.int(),
    toIndex: t.int(),
    limit: t.int(),
  }),
});

const ImportChatInput = builder.inputType('ImportChatInput', {
  fields: (t) => ({
    jsonl: t.string({ required: true, description: 'The whole SillyTavern chat file.' }),
    id: t.string({ description: 'Default: a new uuid.' }),
    fileName: t.string(),
    replace: t.boolean({ description: 'Replace a chat with the same id instead of failing with CONFLICT.' }),
  }),
});

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

const LorebookEntryType = builder.objectRef<LorebookEntryRow>('LorebookEntry').implement({
  fields: (t) => ({
    uid: t.exposeInt('uid'),
    name: t.exposeString('name'),
    content: t.exposeString('content'),
    keys: t.stringList({ resolve: (entry) => entry.fields.key }),
    secondaryKeys: t.stringList({ resolve: (entry) => entry.fields.keysecondary }),
    constant: t.boolean({ resolve: (entry) => entry.fields.constant }),
    disabled: t.boolean({ resolve: (entry) => entry.fields.disable }),
    position: t.string({ resolve: (entry) => positionName(entry.fields.position) }),
    order: t.float({ resolve: (entry) => entry.fields.order }),
    fields: t.field({
      type: 'JSON',
      description: "Every field of SillyTavern's entry definition, with its defaults filled in.",
      resolve: (entry) => entry.fields,
    }),
    raw: t.field({
      type: 'JSON',
      description: 'The entry as imported.',
      resolve: (entry) => JSON.parse(entry.raw),
    }),
  }),
});

const LorebookType = builder.objectRef<LorebookRow>('Lorebook').implement({
  description: 'A SillyTavern world info book, from a world file or a character card.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    source: t.exposeString('source', { description: 'world or character_book.' }),
    fileName: t.exposeString('fileName', { nullable: true }),
    entryCount: t.exposeInt('entryCount'),
    importedAt: t.expose('importedAt', { type: 'DateTime' }),
    entries: t.field({
      type: [LorebookEntryType],
      resolve: (book, _args, ctx) => ctx.services.worldInfo.entries(book.id),
    }),
  }),
});

const ImportLorebookInput = builder.inputType('ImportLorebookInput', {
  fields: (t) => ({
    json: t.string({
      required: true,
      description: 'A world info file, a character book or a character card (JSON).',
    }),
    fileName: t.string({ description: 'A world takes its name from the file name, as in SillyTavern.' }),
    name: t.string(),
  }),
});

const ActivatedEntryType = builder.objectRef<ActivationEntrySnapshot>('ActivatedWorldInfoEntry').implement({
  fields: (t) => ({
    ref: t.exposeString('ref'),
    lorebookId: t.exposeID('lorebookId'),
    lorebookName: t.exposeString('lorebookName'),
    uid: t.exposeInt('uid'),
    name: t.exposeString('name'),
    position: t.string({ resolve: (entry) => positionName(entry.position) }),
    depth: t.exposeInt('depth'),
    constant: t.exposeBoolean('constant'),
    order: t.exposeFloat('order'),
    content: t.exposeString('content'),
    size: t.exposeInt('size'),
    matchedKey: t.exposeString('matchedKey', { nullable: true }),
  }),
});

const WorldInfoActivationType = builder.objectRef<ActivationRow>('WorldInfoActivation').implement({
  description: 'The entries that went into a prompt, in prompt order: recorded by the host or computed here.',
  fields: (t) => ({
    id: t.exposeID('id'),
    runId: t.exposeString('runId', { nullable: true }),
    chatId: t.exposeString('chatId', { nullable: true }),
    source: t.exposeString('source', { description: 'HOST or COMPUTED.' }),
    entries: t.expose('entries', { type: [ActivatedEntryType] }),
    budget: t.field({ type: 'JSON', nullable: true, resolve: (activation) => activation.budget }),
    createdBy: t.exposeString('createdBy'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const ActivatedEntryInput = builder.inputType('ActivatedWorldInfoEntryInput', {
  fields: (t) => ({
    lorebookId: t.id({ required: true }),
    uid: t.int({ required: true }),
    content: t.string({ description: 'The text as it went into the prompt, when it differs (macros).' }),
  }),
});

const RecordActivationInput = builder.inputType('RecordWorldInfoActivationInput', {
  fields: (t) => ({
    runId: t.id(),
    chatId: t.string(),
    entries: t.field({ type: [ActivatedEntryInput], required: true, description: 'In prompt order.' }),
  }),
});

const ComputeActivationInput = builder.inputType('ComputeWorldInfoActivationInput', {
  fields: (t) => ({
    chatId: t.string({ required: true }),
    runId: t.id(),
    lorebookIds: t.idList({ required: true, description: 'Books in priority order.' }),
    scanDepth: t.int({ description: 'Messages scanned when an entry sets none (default 2).' }),
    caseSensitive: t.boolean(),
    matchWholeWords: t.boolean(),
    includeNames: t.boolean({ description: 'Scan "name: text" (default true).' }),
    budget: t.int({ description: 'Characters of activated content; no limit when absent.' }),
  }),
});

const optionalId = (id: string | number | null | undefined) => (id == null ? null : String(id));

builder.queryFields((t) => ({
  chats: t.connection({
    type: ChatType,
    description: 'Imported chats, by id.',
    authScopes: scopes.readers,
    resolve: (_root, args, ctx) =>
      resolveCursorConnection<Promise<ChatRow[]>>(
        { args, toCursor: (chat) => chat.id, defaultSize: 50, maxSize: 200 },
        (page) => ctx.services.chats.page(page),
      ),
  }),
  chat: t.field({
    type: ChatType,
    nullable: true,
    authScopes: scopes.readers,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.chats.get(String(args.id)),
  }),
  exportChat: t.string({
    description: 'The chat as SillyTavern JSONL, byte for byte as it was imported.',
    authScopes: scopes.readers,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.chats.exportChatText(String(args.id)),
  }),
  searchChat: t.field({
    type: ChatSearchResultType,
    description: 'The search chat.search runs, for UIs.',
    authScopes: scopes.readers,
    args: {
      chatId: t.arg.id({ required: true }),
      input: t.arg({ type: ChatSearchInput, required: true, validate: { schema: chatSearchInputSchema } }),
    },
    resolve: async (_root, args, ctx) => {
      const chat = await ctx.services.chats.require(String(args.chatId));
      return ctx.services.chats.search(chat.id, args.input);
    },
  }),
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
  lorebooks: t.field({
    type: [LorebookType],
    authScopes: scopes.readers,
    resolve: (_root, _args, ctx) => ctx.services.worldInfo.list(),
  }),
  lorebook: t.field({
    type: LorebookType,
    nullable: true,
    authScopes: scopes.readers,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.worldInfo.get(String(args.id)),
  }),
  exportLorebook: t.field({
    type: 'JSON',
    description:
      'The book as imported (a world file, or the character_book object of a card), rebuilt from its entries.',
    authScopes: scopes.readers,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.worldInfo.exportLorebook(String(args.id)),
  }),
  worldInfoActivation: t.field({
    type: WorldInfoActivationType,
    nullable: true,
    description: "The run's newest activation, else its chat's newest: what worldinfo.read_activated reads.",
    authScopes: scopes.readers,
    args: { runId: t.arg.id(), chatId: t.arg.string() },
    resolve: (_root, args, ctx) =>
      ctx.services.worldInfo.latestActivation({ runId: optionalId(args.runId), chatId: args.chatId }),
  }),
}));

builder.mutationFields((t) => ({
  importChat: t.field({
    type: ChatType,
    description:
      'Imports a SillyTavern chat (modern or legacy JSONL). Nothing is dropped; exportChat gives the file back.',
    authScopes: scopes.admin,
    args: {
      input: t.arg({
        type: ImportChatInput,
        required: true,
        validate: {
          schema: z.object({
            jsonl: z.string().min(1),
            id: chatIdSchema.nullish(),
            fileName: z.string().trim().min(1).max(500).nullish(),
            replace: z.boolean().nullish(),
          }),
        },
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.chats.importChat(args.input.jsonl, {
        id: args.input.id ?? null,
        fileName: args.input.fileName ?? null,
        replace: args.input.replace ?? false,
        actor: actorOf(ctx.principal),
      }),
  }),
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
  importLorebook: t.field({
    type: LorebookType,
    description:
      'Imports a world info file, or the character_book inside a character card, keeping every entry field.',
    authScopes: scopes.admin,
    args: {
      input: t.arg({
        type: ImportLorebookInput,
        required: true,
        validate: { schema: importLorebookInputSchema },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.worldInfo.importLorebook(args.input, actorOf(ctx.principal)),
  }),
  recordWorldInfoActivation: t.field({
    type: WorldInfoActivationType,
    description: 'The host records which entries it put into the prompt of a run or chat (in prompt order).',
    authScopes: scopes.agents,
    args: {
      input: t.arg({
        type: RecordActivationInput,
        required: true,
        validate: { schema: recordActivationInputSchema },
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.worldInfo.recordActivation(
        {
          ...args.input,
          runId: optionalId(args.input.runId),
          entries: args.input.entries.map((entry) => ({ ...entry, lorebookId: String(entry.lorebookId) })),
        },
        actorOf(ctx.principal),
      ),
  }),
  computeWorldInfoActivation: t.field({
    type: WorldInfoActivationType,
    description:
      "Computes an activation from the chat's newest messages with the books' keys (a documented subset of SillyTavern's scan) and records it.",
    authScopes: scopes.agents,
    args: {
      input: t.arg({
        type: ComputeActivationInput,
        required: true,
        validate: { schema: computeActivationInputSchema },
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.worldInfo.computeActivation(
        {
          ...args.input,
          runId: optionalId(args.input.runId),
          lorebookIds: args.input.lorebookIds.map(String),
        },
        actorOf(ctx.principal),
      ),
  }),
}));
