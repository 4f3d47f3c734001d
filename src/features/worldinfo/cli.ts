import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { type Command, existingPath } from '../../cli/command.js';
import type { WorldInfoService } from './service.js';

export const worldInfoCommands: Command<{ worldInfo: WorldInfoService }>[] = [
  {
    path: ['worldinfo', 'import'],
    summary: 'Import a SillyTavern world info file, or the lorebook inside a character card (JSON).',
    usage: 'worldinfo import <file.json> [--name <name>]',
    options: {
      name: { type: 'string', description: 'the lorebook name (default: from the file or the card)' },
    },
    async run({ values, positionals }, services, io) {
      const file = existingPath(positionals[0], 'world info or card file', 'file');
      const book = await services.worldInfo.importLorebook(
        {
          json: readFileSync(file, 'utf8'),
          fileName: basename(file),
          name: typeof values.name === 'string' ? values.name : null,
        },
        'cli:worldinfo-import',
      );
      io.out(
        `imported lorebook ${book.name} (${book.id}): ${book.entryCount} entries from a ${book.source.replace('_', ' ')}`,
      );
      return 0;
    },
  },
];
