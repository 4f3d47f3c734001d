import { actorOf } from '../../../core/auth.js';
import { builder, scopes } from '../../../graphql/builder.js';
import { type CharacterRow, fieldsOf, importCharacterInputSchema } from '../characters.js';
import {
  CARD_SPECS,
  type CardSpecName,
  type CharacterFields,
  cardChunks,
  cardFormats,
} from '../rules/card.js';
import { LorebookType } from './lorebooks.js';

const CardFormatEnum = builder.enumType('CharacterCardFormat', {
  description: 'How the card came: JSON, or a PNG carrying it in a tEXt chunk.',
  values: cardFormats,
});

const CardChunkEnum = builder.enumType('CharacterCardChunk', {
  description: 'The PNG tEXt chunk a card was read from: ccv3 (V3) is preferred to chara (V2).',
  values: cardChunks,
});

const CardSpecEnum = builder.enumType('CharacterCardSpec', {
  description: 'A card form to export: V2 (chara_card_v2, spec_version 2.0) or V3 (chara_card_v3, 3.0).',
  values: Object.keys(CARD_SPECS) as CardSpecName[],
});

type TextField = {
  [K in keyof CharacterFields]: CharacterFields[K] extends string ? K : never;
}[keyof CharacterFields];

const CharacterType = builder.objectRef<CharacterRow>('Character').implement({
  description:
    'A SillyTavern character card as imported: every field, the card itself, and its embedded lorebook.',
  fields: (t) => {
    const text = (field: TextField, source: string, description: string) =>
      t.string({ description: `${description} (\`${source}\`).`, resolve: (row) => fieldsOf(row)[field] });
    return {
      id: t.exposeID('id', { description: 'The character id.' }),
      name: t.exposeString('name', { description: 'The character name (`data.name`).' }),
      spec: t.exposeString('spec', {
        description: '`chara_card_v2` or `chara_card_v3`; null for a V1 card.',
        nullable: true,
      }),
      specVersion: t.exposeString('specVersion', { description: '`spec_version` as given.', nullable: true }),
      format: t.expose('format', { type: CardFormatEnum, description: 'JSON or PNG.' }),
      chunk: t.expose('chunk', {
        type: CardChunkEnum,
        nullable: true,
        description: 'For a PNG card, the chunk it was read from; null for JSON.',
      }),
      fileName: t.exposeString('fileName', {
        description: 'The file it came from, when given.',
        nullable: true,
      }),
      description: text('description', 'description', 'The character description'),
      personality: text('personality', 'personality', 'Its personality'),
      scenario: text('scenario', 'scenario', 'The scenario'),
      firstMessage: text('firstMessage', 'first_mes', 'The greeting'),
      alternateGreetings: t.stringList({
        description: 'Other greetings (`alternate_greetings`).',
        resolve: (row) => fieldsOf(row).alternateGreetings,
      }),
      exampleMessages: text('exampleMessages', 'mes_example', 'Example dialogue'),
      creatorNotes: text('creatorNotes', 'creator_notes', "The creator's notes"),
      systemPrompt: text('systemPrompt', 'system_prompt', 'The main prompt override'),
      postHistoryInstructions: text(
        'postHistoryInstructions',
        'post_history_instructions',
        'Instructions after the chat history',
      ),
      tags: t.stringList({ description: 'Tags (`tags`).', resolve: (row) => fieldsOf(row).tags }),
      creator: text('creator', 'creator', 'Who made it'),
      characterVersion: text('characterVersion', 'character_version', 'Its version'),
      extensions: t.field({
        type: 'JSON',
        description: 'Application data (`extensions`), as imported.',
        resolve: (row) => fieldsOf(row).extensions,
      }),
      card: t.field({
        type: 'JSON',
        description: 'The whole card as imported, unknown fields and the V1 top-level fields included.',
        resolve: (row) => JSON.parse(row.card),
      }),
      lorebook: t.field({
        type: LorebookType,
        nullable: true,
        description: 'Its embedded book (`data.character_book`), imported with it; null when it has none.',
        resolve: (row, _args, ctx) => (row.lorebookId ? ctx.services.worldInfo.get(row.lorebookId) : null),
      }),
      importNotes: t.exposeStringList('importNotes', {
        description:
          'What the import converted from a form SillyTavern accepts (a V1 card, comma-separated tags or keys, …), with the field path.',
      }),
      importedAt: t.expose('importedAt', { type: 'DateTime', description: 'When it was imported.' }),
    };
  },
});

const ImportCharacterInput = builder.inputType('ImportCharacterInput', {
  description: 'A character card: its JSON, or a PNG carrying it.',
  fields: (t) => ({
    json: t.string({ description: 'A V1, V2 or V3 card as JSON. Give this or pngBase64.' }),
    pngBase64: t.string({
      description:
        'A card PNG, base64: the ccv3 tEXt chunk is read, else the chara chunk. Give this or json.',
    }),
    fileName: t.string({ description: 'The file it came from, kept for reference.' }),
  }),
});

builder.queryFields((t) => ({
  characters: t.field({
    type: [CharacterType],
    description: 'Every imported character, by name. Every role but EXTENSION.',
    authScopes: scopes.readers,
    resolve: (_root, _args, ctx) => ctx.services.characters.list(),
  }),
  character: t.field({
    type: CharacterType,
    nullable: true,
    description: 'One character; null when there is none. Every role but EXTENSION.',
    authScopes: scopes.readers,
    args: { id: t.arg.id({ required: true, description: 'The character id.' }) },
    resolve: (_root, args, ctx) => ctx.services.characters.get(String(args.id)),
  }),
  exportCharacter: t.field({
    type: 'JSON',
    description:
      'The card in V2 or V3 form: the card as imported with spec and spec_version set (V2 leaves out the V3-only data fields). Every role but EXTENSION.',
    authScopes: scopes.readers,
    args: {
      id: t.arg.id({ required: true, description: 'The character id.' }),
      spec: t.arg({ type: CardSpecEnum, required: true, description: 'The form to export.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.characters.exportCard(String(args.id), args.spec),
  }),
}));

builder.mutationFields((t) => ({
  importCharacter: t.field({
    type: CharacterType,
    description:
      'Imports a character card (JSON, or PNG with a ccv3 or chara chunk), keeping the whole card; its embedded book becomes a lorebook in the same transaction. ADMIN only.',
    authScopes: scopes.admin,
    args: {
      input: t.arg({
        type: ImportCharacterInput,
        required: true,
        description: 'The card.',
        validate: { schema: importCharacterInputSchema },
      }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.characters.importCharacter(args.input, actorOf(ctx.principal)),
  }),
  removeCharacter: t.boolean({
    description: 'Deletes a character; its lorebook stays. ADMIN only.',
    authScopes: scopes.admin,
    args: { id: t.arg.id({ required: true, description: 'The character id.' }) },
    resolve: (_root, args, ctx) => ctx.services.characters.remove(String(args.id)),
  }),
}));
