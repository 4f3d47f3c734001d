import { actorOf } from '../../../core/auth.js';
import { notFound } from '../../../core/errors.js';
import { builder, scopes } from '../../../graphql/builder.js';
import type { GraphQLContext } from '../../../graphql/context.js';
import { optionalId } from '../../../graphql/ids.js';
import { positionName } from '../rules/entries.js';
import {
  type ActivationRow,
  computeActivationInputSchema,
  importLorebookInputSchema,
  type LorebookEntryRow,
  type LorebookRow,
  recordActivationInputSchema,
} from '../service.js';
import type { ActivationEntrySnapshot } from '../tables.js';

const LorebookEntryType = builder.objectRef<LorebookEntryRow>('LorebookEntry').implement({
  description: 'One world info entry, with the fields most clients need and every field in `fields`.',
  fields: (t) => ({
    uid: t.exposeInt('uid', { description: 'The entry id within its book.' }),
    name: t.exposeString('name', { description: 'The entry title (`comment`).' }),
    content: t.exposeString('content', {
      description: 'The text that goes into the prompt when the entry activates.',
    }),
    keys: t.stringList({
      description: 'Primary keys that activate it.',
      resolve: (entry) => entry.fields.key,
    }),
    secondaryKeys: t.stringList({
      description: 'Secondary keys, combined with the primary ones by its selective logic.',
      resolve: (entry) => entry.fields.keysecondary,
    }),
    constant: t.boolean({
      description: 'Always active, whatever the keys.',
      resolve: (entry) => entry.fields.constant,
    }),
    disabled: t.boolean({ description: 'Never active.', resolve: (entry) => entry.fields.disable }),
    position: t.string({
      description:
        'Where it goes in the prompt: before_char, after_char, an_top, an_bottom, at_depth, em_top, em_bottom or outlet.',
      resolve: (entry) => positionName(entry.fields.position),
    }),
    order: t.float({
      description: 'Insertion order; higher goes later (nearer the end).',
      resolve: (entry) => entry.fields.order,
    }),
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

export const LorebookType = builder.objectRef<LorebookRow>('Lorebook').implement({
  description: 'A SillyTavern world info book, from a world file or a character card.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The lorebook id.' }),
    name: t.exposeString('name', { description: 'The book name (a world takes it from its file name).' }),
    source: t.exposeString('source', { description: 'world or character_book.' }),
    fileName: t.exposeString('fileName', {
      description: 'The file name it was imported from; null when none was given.',
      nullable: true,
    }),
    entryCount: t.exposeInt('entryCount', { description: 'Entries in the book.' }),
    importNotes: t.exposeStringList('importNotes', {
      description:
        'What the import converted from a form SillyTavern accepts into its own (a comma-separated key string, …), with the field path; empty when nothing was.',
    }),
    importedAt: t.expose('importedAt', { description: 'When it was imported.', type: 'DateTime' }),
    entries: t.field({
      description: 'Every entry, in the order of the imported file.',
      type: [LorebookEntryType],
      resolve: (book, _args, ctx) => ctx.services.worldInfo.entries(book.id),
    }),
  }),
});

const ImportLorebookInput = builder.inputType('ImportLorebookInput', {
  description: 'A world info file or character card to import.',
  fields: (t) => ({
    json: t.string({
      description: 'A world info file, a character book or a character card (JSON). Give this or pngBase64.',
    }),
    pngBase64: t.string({
      description:
        'A character card PNG, base64: its book is read from the ccv3 tEXt chunk, else the chara chunk. Give this or json.',
    }),
    fileName: t.string({ description: 'A world takes its name from the file name, as in SillyTavern.' }),
    name: t.string({ description: 'The book name, when it should not come from the file.' }),
  }),
});

const ActivatedEntryType = builder.objectRef<ActivationEntrySnapshot>('ActivatedWorldInfoEntry').implement({
  description: 'A snapshot of one entry as it went into a prompt.',
  fields: (t) => ({
    ref: t.exposeString('ref', { description: 'A stable reference, `wi:<lorebookId>#<uid>`.' }),
    lorebookId: t.exposeID('lorebookId', { description: 'The book it comes from.' }),
    lorebookName: t.exposeString('lorebookName', { description: "The book's name." }),
    uid: t.exposeInt('uid', { description: 'The entry id within its book.' }),
    name: t.exposeString('name', { description: 'The entry title.' }),
    position: t.string({
      description:
        'Where it went in the prompt (before_char, after_char, an_top, an_bottom, at_depth, em_top, em_bottom, outlet).',
      resolve: (entry) => positionName(entry.position),
    }),
    depth: t.exposeInt('depth', {
      description: 'For at_depth: how many messages from the end it was inserted.',
    }),
    constant: t.exposeBoolean('constant', { description: 'It was always active.' }),
    order: t.exposeFloat('order', { description: 'Insertion order; higher goes later.' }),
    content: t.exposeString('content', { description: 'The text as it went into the prompt.' }),
    size: t.exposeInt('size', { description: 'Length of content, in characters (code points).' }),
    matchedKey: t.exposeString('matchedKey', {
      description: 'The key that activated it; null for constant or host-recorded entries.',
      nullable: true,
    }),
  }),
});

const WorldInfoActivationType = builder.objectRef<ActivationRow>('WorldInfoActivation').implement({
  description: 'The entries that went into a prompt, in prompt order: recorded by the host or computed here.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The activation id.' }),
    runId: t.exposeString('runId', {
      description: 'The run it was made for; null when it is for a chat only.',
      nullable: true,
    }),
    chatId: t.exposeString('chatId', {
      description: 'The chat it was made for; null when none was named.',
      nullable: true,
    }),
    source: t.exposeString('source', { description: 'HOST or COMPUTED.' }),
    entries: t.expose('entries', {
      description: 'The entries, in prompt order.',
      type: [ActivatedEntryType],
    }),
    budget: t.field({
      description: 'For COMPUTED activations: `{ limit, used, overflowed }` in characters; null otherwise.',
      type: 'JSON',
      nullable: true,
      resolve: (activation) => activation.budget,
    }),
    createdBy: t.exposeString('createdBy', { description: 'The actor that recorded or computed it.' }),
    createdAt: t.expose('createdAt', { description: 'When it was made.', type: 'DateTime' }),
  }),
});

const ActivatedEntryInput = builder.inputType('ActivatedWorldInfoEntryInput', {
  description: 'One entry the host put into the prompt.',
  fields: (t) => ({
    lorebookId: t.id({ description: 'The book it comes from.', required: true }),
    uid: t.int({ description: 'The entry id within its book.', required: true }),
    content: t.string({ description: 'The text as it went into the prompt, when it differs (macros).' }),
  }),
});

const RecordActivationInput = builder.inputType('RecordWorldInfoActivationInput', {
  description: 'The entries a host put into a prompt; name a run, a chat or both.',
  fields: (t) => ({
    runId: t.id({ description: 'The run the prompt was for.' }),
    chatId: t.string({ description: 'The chat the prompt was for.' }),
    entries: t.field({ type: [ActivatedEntryInput], required: true, description: 'In prompt order.' }),
  }),
});

const ComputeActivationInput = builder.inputType('ComputeWorldInfoActivationInput', {
  description: "What to scan: a chat's newest messages, against the keys of these books.",
  fields: (t) => ({
    chatId: t.string({ description: 'The chat whose newest messages are scanned.', required: true }),
    runId: t.id({ description: 'The run to record the activation for.' }),
    lorebookIds: t.idList({ required: true, description: 'Books in priority order.' }),
    scanDepth: t.int({ description: 'Messages scanned when an entry sets none (default 2).' }),
    caseSensitive: t.boolean({
      description: 'Keys match case-sensitively when the entry sets nothing (default false).',
    }),
    matchWholeWords: t.boolean({
      description: 'Keys match whole words only when the entry sets nothing (default false).',
    }),
    includeNames: t.boolean({ description: 'Scan "name: text" (default true).' }),
    budget: t.int({ description: 'Characters of activated content; no limit when absent.' }),
  }),
});

builder.queryFields((t) => ({
  lorebooks: t.field({
    description: 'Every imported lorebook. Every role but EXTENSION.',
    type: [LorebookType],
    authScopes: scopes.readers,
    resolve: (_root, _args, ctx) => ctx.services.worldInfo.list(),
  }),
  lorebook: t.field({
    description: 'One lorebook; null when there is none. Every role but EXTENSION.',
    type: LorebookType,
    nullable: true,
    authScopes: scopes.readers,
    args: { id: t.arg.id({ description: 'The lorebook id.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.worldInfo.get(String(args.id)),
  }),
  exportLorebook: t.field({
    type: 'JSON',
    description:
      'The book as imported (a world file, or the character_book object of a card), rebuilt from its entries. Every role but EXTENSION.',
    authScopes: scopes.readers,
    args: { id: t.arg.id({ description: 'The lorebook id.', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.worldInfo.exportLorebook(String(args.id)),
  }),
  worldInfoActivation: t.field({
    type: WorldInfoActivationType,
    nullable: true,
    description:
      "The run's newest activation, else its chat's newest: what worldinfo.read_activated reads. A run or chat the caller may not read counts as not given. Every role but EXTENSION.",
    authScopes: { ...scopes.readers, host: true },
    args: {
      runId: t.arg.id({ description: 'The run whose newest activation to read.' }),
      chatId: t.arg.string({
        description: 'The chat whose newest activation to read when the run has none.',
      }),
    },
    resolve: async (_root, args, ctx) => {
      const runId = optionalId(args.runId);
      const run = runId ? await ctx.services.runs.get(runId, ctx.principal!) : null;
      const chat = args.chatId ? await ctx.services.chats.visible(ctx.principal!, args.chatId) : null;
      return ctx.services.worldInfo.latestActivation({ runId: run?.id ?? null, chatId: chat?.id ?? null });
    },
  }),
}));

/** An activation is written only for a run and a chat the caller may read: NOT_FOUND otherwise. */
async function requireTargets(ctx: GraphQLContext, runId: string | null, chatId: string | null | undefined) {
  if (runId && !(await ctx.services.runs.get(runId, ctx.principal!))) throw notFound(`no run ${runId}`);
  if (chatId) await ctx.services.chats.requireVisible(ctx.principal!, chatId);
}

builder.mutationFields((t) => ({
  importLorebook: t.field({
    type: LorebookType,
    description:
      'Imports a world info file, or the character_book inside a character card, keeping every entry field. ADMIN only.',
    authScopes: scopes.admin,
    args: {
      input: t.arg({
        description: 'The file.',
        type: ImportLorebookInput,
        required: true,
        validate: { schema: importLorebookInputSchema },
      }),
    },
    resolve: (_root, args, ctx) => ctx.services.worldInfo.importLorebook(args.input, actorOf(ctx.principal)),
  }),
  recordWorldInfoActivation: t.field({
    type: WorldInfoActivationType,
    description:
      'The host records which entries it put into the prompt of a run or chat (in prompt order). ADMIN, HOST and AGENT.',
    authScopes: scopes.agents,
    args: {
      input: t.arg({
        description: 'What went into the prompt.',
        type: RecordActivationInput,
        required: true,
        validate: { schema: recordActivationInputSchema },
      }),
    },
    resolve: async (_root, args, ctx) => {
      await requireTargets(ctx, optionalId(args.input.runId), args.input.chatId);
      return ctx.services.worldInfo.recordActivation(
        {
          ...args.input,
          runId: optionalId(args.input.runId),
          entries: args.input.entries.map((entry) => ({ ...entry, lorebookId: String(entry.lorebookId) })),
        },
        actorOf(ctx.principal),
      );
    },
  }),
  computeWorldInfoActivation: t.field({
    type: WorldInfoActivationType,
    description:
      "Computes an activation from the chat's newest messages with the books' keys (a documented subset of SillyTavern's scan) and records it. ADMIN, HOST and AGENT.",
    authScopes: scopes.agents,
    args: {
      input: t.arg({
        description: 'What to scan.',
        type: ComputeActivationInput,
        required: true,
        validate: { schema: computeActivationInputSchema },
      }),
    },
    resolve: async (_root, args, ctx) => {
      await requireTargets(ctx, optionalId(args.input.runId), args.input.chatId);
      return ctx.services.worldInfo.computeActivation(
        {
          ...args.input,
          runId: optionalId(args.input.runId),
          lorebookIds: args.input.lorebookIds.map(String),
        },
        actorOf(ctx.principal),
      );
    },
  }),
}));
