import { actorOf } from '../../core/auth.js';
import { builder, scopes } from '../../graphql/builder.js';
import { optionalId } from '../../graphql/ids.js';
import { positionName } from './rules/worldinfo.js';
import {
  type ActivationRow,
  computeActivationInputSchema,
  importLorebookInputSchema,
  type LorebookEntryRow,
  type LorebookRow,
  recordActivationInputSchema,
} from './service.js';
import type { ActivationEntrySnapshot } from './tables.js';

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

builder.queryFields((t) => ({
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
