import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { chatCommands } from '../../../src/features/chat/cli.js';
import { CHATS_DIR, fixtureChats } from '../../support/chat.js';
import { runCommand, tempDirs } from '../../support/cli.js';
import { dbTest as test } from '../../support/fixtures.js';

const temp = tempDirs('ats-chat-cli-');
const cli = (services: Services, words: string[], values: Record<string, string | boolean> = {}) =>
  runCommand(chatCommands, services, words, values);

describe('chat commands', () => {
  test('chat import then chat export writes the same bytes', async ({ services }) => {
    const source = join(CHATS_DIR, fixtureChats[0]!);
    const imported = await cli(services, ['chat', 'import', source], { id: 'sera', user: 'alice' });
    expect(imported).toEqual({
      code: 0,
      out: [`imported chat sera for alice: 4 messages (modern header, ${readFileSync(source).length} bytes)`],
      err: [],
    });
    const target = join(temp(), 'out.jsonl');
    const exported = await cli(services, ['chat', 'export', 'sera', target]);
    expect(exported.code).toBe(0);
    expect(readFileSync(target)).toEqual(readFileSync(source));
  });

  test('chat export refuses to overwrite a file', async ({ services }) => {
    await cli(services, ['chat', 'import', join(CHATS_DIR, fixtureChats[1]!)], {
      id: 'aqua',
      'no-user': true,
    });
    const target = join(temp(), 'taken.jsonl');
    writeFileSync(target, 'keep me');
    await expect(cli(services, ['chat', 'export', 'aqua', target])).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(readFileSync(target, 'utf8')).toBe('keep me');
  });

  test('chat import of a missing file is a usage error', async ({ services }) => {
    await expect(cli(services, ['chat', 'import', join(temp(), 'nope.jsonl')])).rejects.toMatchObject({
      name: 'UsageError',
      message: expect.stringMatching(/^no such file: /),
    });
  });

  test('chat import names the owner: without --user or --no-user it is a usage error', async ({
    services,
  }) => {
    await expect(
      cli(services, ['chat', 'import', join(CHATS_DIR, fixtureChats[0]!)], { id: 'sera' }),
    ).rejects.toMatchObject({
      name: 'UsageError',
      message: 'name the user the chat belongs to: --user <user-id> (or --no-user)',
    });
    expect(await services.chats.get('sera')).toBeNull();
  });

  test('chat owner gives a chat to another user', async ({ services }) => {
    await cli(services, ['chat', 'import', join(CHATS_DIR, fixtureChats[0]!)], { id: 'sera', user: 'alice' });
    expect(await cli(services, ['chat', 'owner', 'sera'], { user: 'bob' })).toEqual({
      code: 0,
      out: ['chat sera now belongs to bob'],
      err: [],
    });
    expect((await services.chats.get('sera'))!.ownerUserId).toBe('bob');
  });
});
