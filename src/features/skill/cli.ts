import { type Command, existingPath } from '../../cli/command.js';
import { readSkillFolders } from './folders.js';
import type { SkillService } from './service.js';

export const skillCommands: Command<{ skills: SkillService }>[] = [
  {
    path: ['skill', 'import'],
    summary: 'Import an Agent Skills folder, or every skill folder in a directory.',
    usage: 'skill import <dir>',
    async run({ positionals }, services, io) {
      const { folders } = readSkillFolders(existingPath(positionals[0], 'skill directory', 'directory'));
      const imported = await services.skills.importSkills(folders, 'cli:skill-import');
      for (const skill of imported) {
        io.out(`imported skill ${skill.name}`);
        for (const warning of skill.warnings) io.err(`  warning: ${warning.message}`);
        for (const file of skill.skippedFiles) io.err(`  skipped ${file.path} (${file.reason})`);
      }
      return 0;
    },
  },
];
