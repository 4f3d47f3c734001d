import { createReadStream, createWriteStream, existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Command, existingPath, ownerOption, ownerOptions, UsageError } from '../../cli/command.js';
import { progressLine } from '../../cli/progress.js';
import { conflict } from '../../core/errors.js';
import type { ChatService } from './service.js';

const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

export const chatCommands: Command<{ chats: ChatService }>[] = [
  {
    path: ['chat', 'import'],
    summary: 'Import a SillyTavern chat file (JSONL), streaming it line by line.',
    usage: 'chat import <file.jsonl> (--user <user-id> | --no-user) [--id <id>] [--replace]',
    options: {
      ...ownerOptions,
      id: { type: 'string', description: 'the chat id runs refer to (default: a new uuid)' },
      replace: { type: 'boolean', description: 'replace a chat that has this id already' },
    },
    async run({ values, positionals }, services, io) {
      const file = existingPath(positionals[0], 'chat file', 'file');
      const { ownerUserId } = ownerOption(values, 'chat');
      const total = statSync(file).size;
      const progress = progressLine();
      const chat = await services.chats
        .importChat(createReadStream(file), {
          id: typeof values.id === 'string' ? values.id : null,
          fileName: basename(file),
          replace: values.replace === true,
          ownerUserId,
          actor: 'cli:chat-import',
          onProgress: (p) =>
            progress.update(
              `importing ${basename(file)}: ${total > 0 ? Math.floor((p.bytes / total) * 100) : 100}% ` +
                `(${p.messages.toLocaleString('en')} messages, ${megabytes(p.bytes)} of ${megabytes(total)})`,
            ),
        })
        .finally(() => progress.done());
      io.out(
        `imported chat ${chat.id} for ${chat.ownerUserId ?? 'no user'}: ${chat.messageCount} messages (${chat.headerShape} header, ${chat.byteSize} bytes)`,
      );
      return 0;
    },
  },
  {
    path: ['chat', 'export'],
    summary: 'Write an imported chat back to a SillyTavern JSONL file, byte for byte.',
    usage: 'chat export <id> <file.jsonl>',
    async run({ positionals }, services, io) {
      const [id, file] = positionals;
      if (!id || !file) throw new UsageError('the chat id and the output file are required');
      const chat = await services.chats.require(id);
      if (existsSync(file)) throw conflict(`${file} exists already; give a new file name`);
      await pipeline(Readable.from(services.chats.exportChat(id)), createWriteStream(file, { flags: 'wx' }));
      io.out(`exported chat ${chat.id} to ${file}: ${chat.messageCount} messages, ${chat.byteSize} bytes`);
      return 0;
    },
  },
  {
    path: ['chat', 'owner'],
    summary: 'Give a chat to another user: only runs of its owner may name it.',
    usage: 'chat owner <id> (--user <user-id> | --no-user)',
    options: {
      ...ownerOptions,
    },
    async run({ positionals, values }, services, io) {
      const [id] = positionals;
      if (!id) throw new UsageError('the chat id is required');
      const { ownerUserId } = ownerOption(values, 'chat');
      await services.chats.setOwner(id, ownerUserId);
      io.out(`chat ${id} now belongs to ${ownerUserId ?? 'no user'}`);
      return 0;
    },
  },
];
