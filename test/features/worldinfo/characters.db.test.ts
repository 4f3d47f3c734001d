import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { worldInfoCommands } from '../../../src/features/worldinfo/cli.js';
import { CARD, FIXTURES, readFixture } from '../../support/chat.js';
import { runCommand } from '../../support/cli.js';
import { dbTest as test } from '../../support/fixtures.js';
import { cardChunk, chunk, png, textChunks } from '../../support/png.js';

const SENSEI = 'sillytavern/characters/default_CodingSensei.png';
const AMY = 'sillytavern/characters/contest_Assistant_Amy.png';
const readPng = (path: string) => readFileSync(join(FIXTURES, path));
const cardIn = (path: string, keyword: string) => JSON.parse(textChunks(readPng(path))[keyword]!);

const importCharacter = `mutation($input: ImportCharacterInput!) { importCharacter(input: $input) {
  id name spec specVersion format chunk description personality scenario firstMessage alternateGreetings
  exampleMessages creatorNotes systemPrompt postHistoryInstructions tags creator characterVersion extensions
  importNotes lorebook { name entryCount } } }`;

async function nothingStored(services: Services) {
  expect(await services.characters.list()).toEqual([]);
  expect(await services.worldInfo.list()).toEqual([]);
}

describe('character cards', () => {
  test('a V2 PNG card (chara chunk only) keeps every field, strings exactly as in the card', async ({
    gql,
  }) => {
    const res = await gql(importCharacter, {
      input: { pngBase64: readPng(SENSEI).toString('base64'), fileName: 'default_CodingSensei.png' },
    });
    const { data } = cardIn(SENSEI, 'chara');
    expect(res.data!.importCharacter).toEqual({
      id: expect.any(String),
      name: data.name,
      spec: 'chara_card_v2',
      specVersion: '2.0',
      format: 'PNG',
      chunk: 'chara',
      description: data.description,
      personality: data.personality,
      scenario: data.scenario,
      firstMessage: data.first_mes,
      alternateGreetings: data.alternate_greetings,
      exampleMessages: data.mes_example,
      creatorNotes: data.creator_notes,
      systemPrompt: data.system_prompt,
      postHistoryInstructions: data.post_history_instructions,
      tags: data.tags,
      creator: data.creator,
      characterVersion: data.character_version,
      extensions: data.extensions,
      importNotes: [],
      lorebook: null,
    });
    const { id } = res.data!.importCharacter;
    const card = await gql(`{ character(id: "${id}") { card } }`);
    expect(card.data!.character.card).toEqual(cardIn(SENSEI, 'chara'));
  });

  test('a PNG with both chunks is read from ccv3', async ({ services }) => {
    const amy = await services.characters.importFile(readPng(AMY), 'contest_Assistant_Amy.png', 'test');
    expect([amy.name, amy.format, amy.chunk, amy.spec]).toEqual(['Amy', 'PNG', 'ccv3', 'chara_card_v3']);
    const differing = png(
      cardChunk(
        'chara',
        JSON.stringify({ spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'Old' } }),
      ),
      cardChunk(
        'ccv3',
        JSON.stringify({ spec: 'chara_card_v3', spec_version: '3.0', data: { name: 'New' } }),
      ),
    );
    const chosen = await services.characters.importFile(differing, 'two.png', 'test');
    expect([chosen.name, chosen.chunk]).toEqual(['New', 'ccv3']);
  });

  test.for([
    [
      'no card chunk',
      png(chunk('tEXt', Buffer.from('Comment\0hello', 'latin1'))),
      'neither a ccv3 nor a chara',
    ],
    ['a truncated file', readPng(SENSEI).subarray(0, 200_000), 'truncated'],
    [
      'a bad CRC',
      (() => {
        const file = png(cardChunk('chara', JSON.stringify({ spec: 'chara_card_v2', data: { name: 'X' } })));
        file.writeUInt8(file.readUInt8(file.length - 20) ^ 0xff, file.length - 20);
        return file;
      })(),
      'CRC',
    ],
    [
      'a chunk that is not base64',
      png(chunk('tEXt', Buffer.from('chara\0{not base64}', 'latin1'))),
      'not base64',
    ],
  ] as const)('refuses a PNG with %s, storing nothing', async ([, file, message], { services, gql }) => {
    await expect(services.characters.importFile(file, 'bad.png', 'test')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      message: expect.stringContaining(message),
    });
    const res = await gql(importCharacter, { input: { pngBase64: file.toString('base64') } });
    expect(res.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'INVALID_PNG' });
    const book = await gql(
      'mutation($input: ImportLorebookInput!) { importLorebook(input: $input) { id } }',
      {
        input: { pngBase64: file.toString('base64') },
      },
    );
    expect(book.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'INVALID_PNG' });
    await nothingStored(services);
  });

  test('a JSON card with a book keeps the character and imports its book with it', async ({
    services,
    gql,
  }) => {
    const res = await gql(importCharacter, { input: { json: readFixture(CARD), fileName: '爱.json' } });
    const original = JSON.parse(readFixture(CARD));
    expect(res.data!.importCharacter).toMatchObject({
      name: original.data.name,
      spec: 'chara_card_v3',
      format: 'JSON',
      chunk: null,
      description: original.data.description,
      firstMessage: original.data.first_mes,
      lorebook: { name: '爱', entryCount: 27 },
    });
    expect(await services.worldInfo.list()).toHaveLength(1);
  });

  test('exports V3 as imported and V2 with the V2 spec and without the V3-only fields', async ({
    services,
  }) => {
    const original = JSON.parse(readFixture(CARD));
    const { id } = await services.characters.importCharacter({ json: readFixture(CARD) }, 'test');
    expect(await services.characters.exportCard(id, 'V3')).toEqual({
      ...original,
      data: { ...original.data, group_only_greetings: original.data.group_only_greetings ?? [] },
    });
    const v2 = await services.characters.exportCard(id, 'V2');
    expect(v2).toMatchObject({ spec: 'chara_card_v2', spec_version: '2.0' });
    const { group_only_greetings: _dropped, ...v2Data } = original.data;
    expect(v2.data).toEqual(v2Data);

    const amy = await services.characters.importFile(readPng(AMY), 'amy.png', 'test');
    const amyCard = cardIn(AMY, 'ccv3');
    expect(await services.characters.exportCard(amy.id, 'V3')).toEqual(amyCard);
    const { group_only_greetings: _amyDropped, ...amyV2Data } = amyCard.data;
    expect(await services.characters.exportCard(amy.id, 'V2')).toEqual({
      ...amyCard,
      spec: 'chara_card_v2',
      spec_version: '2.0',
      data: amyV2Data,
    });
  });

  test('a V1 card is read from its top-level fields, and the import says so', async ({ services }) => {
    const v1 = { name: 'Aqua', description: 'A goddess.', first_mes: 'Hi!', tags: 'goddess, water' };
    const row = await services.characters.importCharacter({ json: JSON.stringify(v1) }, 'test');
    expect(row.importNotes).toEqual([
      'a V1 card (no spec): its fields are read from the top level, as SillyTavern does',
      'tags: a comma-separated string, split into tags as SillyTavern does',
    ]);
    expect(await services.characters.exportCard(row.id, 'V2')).toEqual({
      ...v1,
      spec: 'chara_card_v2',
      spec_version: '2.0',
      data: {
        name: 'Aqua',
        description: 'A goddess.',
        personality: '',
        scenario: '',
        first_mes: 'Hi!',
        mes_example: '',
        creator_notes: '',
        system_prompt: '',
        post_history_instructions: '',
        creator: '',
        character_version: '',
        alternate_greetings: [],
        tags: ['goddess', 'water'],
        extensions: {},
      },
    });
  });

  test('refuses a card field of the wrong type with its path, storing nothing', async ({ services, gql }) => {
    const card = { spec: 'chara_card_v2', data: { name: 'X', alternate_greetings: ['hi', 7] } };
    const res = await gql(importCharacter, { input: { json: JSON.stringify(card) } });
    expect(res.errors![0]).toMatchObject({
      message: 'data.alternate_greetings[1]: expected a string, got number 7',
      extensions: { code: 'BAD_USER_INPUT', reason: 'FIELD_TYPE', path: 'data.alternate_greetings[1]' },
    });
    await nothingStored(services);
  });

  test('importLorebook and worldinfo import take the book of a PNG card', async ({ services, gql }) => {
    const file = png(cardChunk('chara', readFixture(CARD)));
    const res = await gql(
      'mutation($input: ImportLorebookInput!) { importLorebook(input: $input) { name source entryCount } }',
      { input: { pngBase64: file.toString('base64') } },
    );
    expect(res.data!.importLorebook).toEqual({ name: '爱', source: 'character_book', entryCount: 27 });
    const path = join(mkdtempSync(join(tmpdir(), 'card-')), 'ai.png');
    writeFileSync(path, file);
    const book = await runCommand(worldInfoCommands, services, ['worldinfo', 'import', path]);
    expect(book.out).toEqual([
      expect.stringMatching(/^imported lorebook 爱 \([0-9a-f-]{36}\): 27 entries from a character book$/),
    ]);
    const dir = join(FIXTURES, 'sillytavern/characters');
    const cli = await runCommand(worldInfoCommands, services, [
      'character',
      'import',
      join(dir, 'default_CodingSensei.png'),
    ]);
    expect(cli.out).toEqual([
      expect.stringMatching(/^imported character Coding Sensei \([0-9a-f-]{36}\) from PNG chunk chara$/),
    ]);
  });
});
