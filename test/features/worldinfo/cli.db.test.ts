import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { worldInfoCommands } from '../../../src/features/worldinfo/cli.js';
import { CARD, FIXTURES } from '../../support/chat.js';
import { runCommand } from '../../support/cli.js';
import { dbTest as test } from '../../support/fixtures.js';

describe('worldinfo commands', () => {
  test('worldinfo import takes the lorebook of a character card', async ({ services }) => {
    const result = await runCommand(worldInfoCommands, services, [
      'worldinfo',
      'import',
      join(FIXTURES, CARD),
    ]);
    expect(result.out).toEqual([
      expect.stringMatching(/^imported lorebook 爱 \([0-9a-f-]{36}\): 27 entries from a character book$/),
    ]);
  });
});
