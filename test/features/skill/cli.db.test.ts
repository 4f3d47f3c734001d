import { describe, expect } from 'vitest';
import { skillCommands } from '../../../src/features/skill/cli.js';
import { fixtureSkills, SKILLS_DIR } from '../../support/chat.js';
import { runCommand } from '../../support/cli.js';
import { dbTest as test } from '../../support/fixtures.js';

describe('skill commands', () => {
  test('skill import takes a directory of skill folders', async ({ services }) => {
    const result = await runCommand(skillCommands, services, ['skill', 'import', SKILLS_DIR]);
    expect(result.out).toEqual(fixtureSkills.map((name) => `imported skill ${name}`));
    expect(result.err).toEqual([
      '  warning: description is 1068 characters; the Agent Skills spec allows at most 1024',
    ]);
  });
});
