import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SkillFile } from '../../src/features/skill/rules/skill.js';

/** The shared real-world inputs (test/fixtures, described in its SOURCES.md). */
export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
export const CHATS_DIR = join(FIXTURES, 'sillytavern/chats');
export const SKILLS_DIR = join(FIXTURES, 'skills');

export const fixtureChats = [
  'Seraphina - 2023-5-12 @21h 32m 29s 224ms.jsonl',
  'legacy-tavernai/Aqua/1673181146000.jsonl',
  'legacy-tavernai/Darkness/1673225255706.jsonl',
  'legacy-tavernai/Megumin/1673323621108.jsonl',
];

export const fixtureWorlds = ['sillytavern/worlds/Eldoria.json', 'sillytavern/worlds/Eldoria.modern.json'];
export const CARD = 'sillytavern/characters/爱.json';

export const readFixture = (path: string) => readFileSync(join(FIXTURES, path), 'utf8');
export const readChat = (name: string) => readFileSync(join(CHATS_DIR, name), 'utf8');

export function skillFolder(name: string): { folderName: string; files: SkillFile[] } {
  const root = join(SKILLS_DIR, name);
  const files: SkillFile[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir).sort()) {
      const full = join(dir, entry);
      if (statSync(full).isDirectory()) walk(full);
      else
        files.push({ path: relative(root, full).split('\\').join('/'), content: readFileSync(full, 'utf8') });
    }
  };
  walk(root);
  return { folderName: name, files };
}

export const fixtureSkills = [
  'brand-guidelines',
  'claude-api',
  'internal-comms',
  'mcp-builder',
  'skill-creator',
];

/** A small SillyTavern chat with the given message texts, alternating user and assistant from index 0. */
export function chatJsonl(texts: string[], names: { user?: string; character?: string } = {}): string {
  const user = names.user ?? 'Traveler';
  const character = names.character ?? '沈念';
  const header = JSON.stringify({
    user_name: user,
    character_name: character,
    create_date: '2024-08-07@18h45m42s',
    chat_metadata: {},
  });
  const lines = texts.map((mes, i) =>
    JSON.stringify({
      name: i % 2 === 0 ? user : character,
      is_user: i % 2 === 0,
      is_system: false,
      send_date: new Date(Date.UTC(2024, 7, 7, 10, 0, i)).toISOString(),
      mes,
      extra: {},
    }),
  );
  return `${[header, ...lines].join('\n')}\n`;
}
