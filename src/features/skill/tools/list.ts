import type { BuiltInTool } from '../../../calls/tool-contract.js';
import { defineArguments, objectSchema, plural, readOnlySpec, textParts } from '../../../calls/tool-kit.js';
import type { SkillSummary } from '../inputs.js';
import type { SkillService } from '../service.js';

const args = defineArguments({});

function render(skills: SkillSummary[]): string {
  if (skills.length === 0) return 'No skills are available in this run.';
  const lines = [`${plural(skills.length, 'skill')} available (read one with skill.read):`];
  for (const skill of skills) {
    lines.push('', `## ${skill.name}`, skill.description.trim());
    lines.push(`Files: ${skill.files.map((file) => `${file.path} (${file.chars} chars)`).join(', ')}`);
    if (skill.unavailable.length > 0) {
      const files = skill.unavailable.map((file) => `${file.path} (${file.reason})`).join(', ');
      lines.push(`Unavailable, not imported (SKILL.md may mention them; they cannot be read): ${files}`);
    }
  }
  return lines.join('\n');
}

export function listTool(skills: SkillService): BuiltInTool {
  return {
    spec: readOnlySpec({
      name: 'skill.list',
      title: 'List available skills',
      description:
        'Lists the skills you may use in this run: each with its name, its description (what it is for and when to use ' +
        'it), its files with their sizes in characters, and the files of its folder that were not imported and cannot be read. A skill is a folder of instructions (SKILL.md) and reference ' +
        'files; read the ones that fit your task with skill.read. Read-only.',
      inputSchema: args.inputSchema,
      outputSchema: objectSchema(
        {
          skills: {
            type: 'array',
            items: objectSchema(
              {
                name: { type: 'string' },
                description: { type: 'string' },
                files: {
                  type: 'array',
                  items: objectSchema({ path: { type: 'string' }, chars: { type: 'integer', minimum: 0 } }, [
                    'path',
                    'chars',
                  ]),
                },
                unavailable: {
                  type: 'array',
                  items: objectSchema({ path: { type: 'string' }, reason: { type: 'string' } }, [
                    'path',
                    'reason',
                  ]),
                },
              },
              ['name', 'description', 'files', 'unavailable'],
            ),
          },
        },
        ['skills'],
      ),
    }),
    async run(invocation) {
      const visible = await skills.visible(invocation.run.profileId);
      return { content: textParts(render(visible)), structured: { skills: visible } };
    },
  };
}
