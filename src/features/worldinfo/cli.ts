import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { type Command, existingPath } from '../../cli/command.js';
import { badInput } from '../../core/errors.js';
import type { CharacterService } from './characters.js';
import { CARD_SPECS, type CardSpecName } from './rules/card.js';
import { isPng } from './rules/card-png.js';
import type { WorldInfoService } from './service.js';

type Services = { worldInfo: WorldInfoService; characters: CharacterService };

function printNotes(notes: readonly string[], io: { err(line: string): void }) {
  for (const note of notes) io.err(`  converted: ${note}`);
}

export const worldInfoCommands: Command<Services>[] = [
  {
    path: ['worldinfo', 'import'],
    summary: 'Import a SillyTavern world info file, or the lorebook inside a character card (JSON or PNG).',
    usage: 'worldinfo import <file.json|card.png> [--name <name>]',
    options: {
      name: { type: 'string', description: 'the lorebook name (default: from the file or the card)' },
    },
    async run({ values, positionals }, services, io) {
      const file = existingPath(positionals[0], 'world info or card file', 'file');
      const bytes = readFileSync(file);
      const book = await services.worldInfo.importLorebook(
        {
          ...(isPng(bytes) ? { pngBase64: bytes.toString('base64') } : { json: bytes.toString('utf8') }),
          fileName: basename(file),
          name: typeof values.name === 'string' ? values.name : null,
        },
        'cli:worldinfo-import',
      );
      io.out(
        `imported lorebook ${book.name} (${book.id}): ${book.entryCount} entries from a ${book.source.replace('_', ' ')}`,
      );
      printNotes(book.importNotes, io);
      return 0;
    },
  },
  {
    path: ['character', 'import'],
    summary:
      'Import a SillyTavern character card (JSON, or PNG with a ccv3 or chara chunk) and its lorebook.',
    usage: 'character import <card.png|card.json>',
    async run({ positionals }, services, io) {
      const file = existingPath(positionals[0], 'character card', 'file');
      const character = await services.characters.importFile(
        readFileSync(file),
        basename(file),
        'cli:character-import',
      );
      io.out(
        `imported character ${character.name} (${character.id}) from ${character.format}${character.chunk ? ` chunk ${character.chunk}` : ''}${character.lorebookId ? `, with lorebook ${character.lorebookId}` : ''}`,
      );
      printNotes(character.importNotes, io);
      return 0;
    },
  },
  {
    path: ['character', 'export'],
    summary: 'Write a character card as JSON, in V2 or V3 form.',
    usage: 'character export <id> <file.json> [--spec V2|V3]',
    options: { spec: { type: 'string', description: 'V2 or V3 (default V3)' } },
    async run({ values, positionals }, services, io) {
      const [id, file] = positionals;
      if (!id || !file) throw badInput('give the character id and the file to write');
      const spec = typeof values.spec === 'string' ? values.spec : 'V3';
      if (!Object.hasOwn(CARD_SPECS, spec)) throw badInput(`--spec must be V2 or V3, not ${spec}`);
      const card = await services.characters.exportCard(id, spec as CardSpecName);
      writeFileSync(file, JSON.stringify(card));
      io.out(`wrote ${CARD_SPECS[spec as CardSpecName]} card ${id} to ${file}`);
      return 0;
    },
  },
];
