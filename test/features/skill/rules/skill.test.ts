import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../../src/core/errors.js';
import {
  checkSkillName,
  parseSkill,
  SkillError,
  type SkillErrorReason,
  type SkillFile,
} from '../../../../src/features/skill/rules/skill.js';

const SKILLS = new URL('../../../fixtures/skills/', import.meta.url);

function loadFolder(name: string): SkillFile[] {
  const files: SkillFile[] = [];
  const walk = (dir: URL, prefix: string) => {
    for (const item of readdirSync(dir, { withFileTypes: true })) {
      if (item.isDirectory()) walk(new URL(`${item.name}/`, dir), `${prefix}${item.name}/`);
      else
        files.push({ path: `${prefix}${item.name}`, content: readFileSync(new URL(item.name, dir), 'utf8') });
    }
  };
  walk(new URL(`${name}/`, SKILLS), '');
  return files;
}

const skillMd = (frontMatter: string, body = '# Title\n') => [
  { path: 'SKILL.md', content: `---\n${frontMatter}\n---\n${body}` },
];

function expectRejection(
  files: SkillFile[],
  reason: SkillErrorReason,
  messagePart: string,
  options: Parameters<typeof parseSkill>[1] = {},
): SkillError {
  try {
    parseSkill(files, options);
  } catch (error) {
    expect(error).toBeInstanceOf(SkillError);
    expect(error).toBeInstanceOf(DomainError);
    const skillError = error as SkillError;
    expect(skillError.reason).toBe(reason);
    expect(skillError.code).toBe('BAD_USER_INPUT');
    expect(skillError.message).toContain(messagePart);
    return skillError;
  }
  throw new Error(`expected a SkillError ${reason}`);
}

describe('fixture skills', () => {
  const expectations = [
    {
      folder: 'brand-guidelines',
      description: "Applies Anthropic's official brand colors and typography",
      license: 'Complete terms in LICENSE.txt',
      files: ['LICENSE.txt', 'SKILL.md'],
    },
    {
      folder: 'claude-api',
      description: 'Reference for the Claude API / Anthropic SDK',
      license: 'Complete terms in LICENSE.txt',
      files: ['LICENSE.txt', 'SKILL.md'],
    },
    {
      folder: 'internal-comms',
      description: 'A set of resources to help me write all kinds of internal communications',
      license: 'Complete terms in LICENSE.txt',
      files: [
        'LICENSE.txt',
        'SKILL.md',
        'examples/3p-updates.md',
        'examples/company-newsletter.md',
        'examples/faq-answers.md',
        'examples/general-comms.md',
      ],
    },
    {
      folder: 'mcp-builder',
      description: 'Guide for creating high-quality MCP (Model Context Protocol) servers',
      license: 'Complete terms in LICENSE.txt',
      files: [
        'LICENSE.txt',
        'SKILL.md',
        'reference/evaluation.md',
        'reference/mcp_best_practices.md',
        'reference/node_mcp_server.md',
        'reference/python_mcp_server.md',
      ],
    },
    {
      folder: 'skill-creator',
      description: 'Create new skills, modify and improve existing skills',
      license: null,
      files: ['LICENSE.txt', 'SKILL.md'],
    },
  ];

  it.each(expectations)('$folder parses, its name matching the folder', (expected) => {
    const skill = parseSkill(loadFolder(expected.folder), { folderName: expected.folder });
    expect(skill.name).toBe(expected.folder);
    expect(skill.folderName).toBe(expected.folder);
    expect(skill.description.startsWith(expected.description)).toBe(true);
    expect(skill.license).toBe(expected.license);
    expect(skill.files.map((file) => file.path).sort()).toEqual(expected.files);
    expect(skill.body.startsWith('\n') || skill.body.startsWith('#')).toBe(true);
    expect(skill.frontMatter.name).toBe(expected.folder);
  });

  it('reads the multi-line block scalar description of claude-api', () => {
    const skill = parseSkill(loadFolder('claude-api'), { folderName: 'claude-api' });
    expect(skill.description.split('\n')).toHaveLength(3);
    expect(
      skill.description.split('\n')[1]?.startsWith('TRIGGER — read BEFORE opening the target file'),
    ).toBe(true);
    expect(skill.description.endsWith('\n')).toBe(false);
    expect([...skill.description]).toHaveLength(1068);
  });

  it('accepts the 1,068-character claude-api description with a warning, and rejects it when strict', () => {
    const skill = parseSkill(loadFolder('claude-api'), { folderName: 'claude-api' });
    expect(skill.warnings).toEqual([
      {
        reason: 'DESCRIPTION_TOO_LONG',
        message: 'description is 1068 characters; the Agent Skills spec allows at most 1024',
      },
    ]);
    expectRejection(
      loadFolder('claude-api'),
      'DESCRIPTION_TOO_LONG',
      'claude-api/SKILL.md: description is 1068',
      {
        folderName: 'claude-api',
        strict: true,
      },
    );
  });

  it('gives no warnings for the other fixture skills', () => {
    for (const folder of ['brand-guidelines', 'internal-comms', 'mcp-builder', 'skill-creator']) {
      expect(parseSkill(loadFolder(folder), { folderName: folder }).warnings).toEqual([]);
    }
  });

  it('reports where the body starts', () => {
    const skill = parseSkill(loadFolder('skill-creator'), { folderName: 'skill-creator' });
    const lines = (loadFolder('skill-creator').find((file) => file.path === 'SKILL.md')?.content ?? '').split(
      '\n',
    );
    expect(lines[skill.bodyLine - 2]).toBe('---');
    expect(skill.body).toBe(lines.slice(skill.bodyLine - 1).join('\n'));
  });
});

describe('optional front matter keys', () => {
  it('keeps license, compatibility, allowed-tools, metadata and unknown keys', () => {
    const skill = parseSkill(
      skillMd(
        [
          'name: pdf-processing',
          'description: Extract text from PDFs.',
          'license: Apache-2.0',
          'compatibility: Needs poppler',
          'allowed-tools: Bash(git add:*) Read, Grep',
          'metadata:',
          '  author: example-org',
          '  version: "1.0"',
          'x-custom: [1, 2]',
        ].join('\n'),
      ),
    );
    expect(skill).toMatchObject({
      license: 'Apache-2.0',
      compatibility: 'Needs poppler',
      allowedTools: ['Bash(git add:*)', 'Read', 'Grep'],
      metadata: { author: 'example-org', version: '1.0' },
    });
    expect(skill.frontMatter['x-custom']).toEqual([1, 2]);
    expect(skill.folderName).toBeNull();
  });

  it('accepts allowed-tools as a YAML list', () => {
    const skill = parseSkill(skillMd('name: a\ndescription: b\nallowed-tools:\n  - Read\n  - Write'));
    expect(skill.allowedTools).toEqual(['Read', 'Write']);
  });

  it('normalises ./ and backslash paths', () => {
    const skill = parseSkill([
      { path: './SKILL.md', content: '---\nname: a\ndescription: b\n---\n' },
      { path: 'reference\\guide.md', content: 'x' },
    ]);
    expect(skill.files.map((file) => file.path)).toEqual(['SKILL.md', 'reference/guide.md']);
  });
});

describe('checkSkillName', () => {
  it.each(['pdf-processing', 'a', 'skill2', 'a'.repeat(64)])('accepts %s', (name) => {
    expect(checkSkillName(name)).toBeNull();
  });

  it.each([
    'PDF-Processing',
    '-pdf',
    'pdf-',
    'pdf--processing',
    'pdf processing',
    'pdf_processing',
    'a'.repeat(65),
    '',
  ])('rejects %j', (name) => {
    expect(checkSkillName(name)).not.toBeNull();
  });
});

describe('malformed skills are rejected with a message naming the problem and the file', () => {
  it('no SKILL.md', () => {
    expectRejection(
      [{ path: 'README.md', content: '# hi' }],
      'SKILL_MD_MISSING',
      'my-skill/SKILL.md: the skill folder has no SKILL.md',
      {
        folderName: 'my-skill',
      },
    );
  });

  it('SKILL.md in the wrong place or case', () => {
    expectRejection([{ path: 'docs/skill.md', content: '' }], 'SKILL_MD_MISSING', 'found "docs/skill.md"');
  });

  it('a path that leaves the folder', () => {
    expectRejection(
      [...skillMd('name: a\ndescription: b'), { path: '../secret', content: '' }],
      'INVALID_PATH',
      '../secret',
    );
  });

  it('an absolute path', () => {
    expectRejection([{ path: '/etc/passwd', content: '' }], 'INVALID_PATH', '/etc/passwd');
  });

  it('the same path twice', () => {
    expectRejection(
      [...skillMd('name: a\ndescription: b'), { path: './SKILL.md', content: '' }],
      'DUPLICATE_PATH',
      'SKILL.md',
    );
  });

  it('no front matter', () => {
    expectRejection(
      [{ path: 'SKILL.md', content: '# Just markdown\n' }],
      'FRONT_MATTER_MISSING',
      'SKILL.md:1: must start with YAML front matter',
    );
  });

  it('unterminated front matter', () => {
    expectRejection(
      [{ path: 'SKILL.md', content: '---\nname: a\ndescription: b\n# Body\n' }],
      'FRONT_MATTER_UNTERMINATED',
      "front matter is not closed by a '---' line",
    );
  });

  it('invalid YAML, with the SKILL.md line', () => {
    const error = expectRejection(
      skillMd('name: a\ndescription: [unclosed\nlicense: x'),
      'INVALID_YAML',
      'invalid YAML in front matter',
    );
    expect(error.line).toBeGreaterThanOrEqual(3);
    expect(error.message).toMatch(/^SKILL\.md:\d+: /);
  });

  it('duplicate keys (invalid YAML)', () => {
    const error = expectRejection(
      skillMd('name: a\nname: b\ndescription: c'),
      'INVALID_YAML',
      'Map keys must be unique',
    );
    expect(error.line).toBe(3);
  });

  it('front matter that is not a mapping', () => {
    expectRejection(
      skillMd('- name\n- description'),
      'FRONT_MATTER_NOT_MAPPING',
      'front matter must be a YAML mapping',
    );
  });

  it('missing name', () => {
    expectRejection(skillMd('description: b'), 'NAME_MISSING', 'front matter has no "name"');
  });

  it('non-string name', () => {
    expectRejection(
      skillMd('name: 42\ndescription: b'),
      'NAME_NOT_STRING',
      '"name" must be a string, got a number',
    );
  });

  it('name in the wrong format', () => {
    expectRejection(
      skillMd('name: My Skill\ndescription: b'),
      'NAME_INVALID',
      'name "My Skill" must use only lowercase',
    );
  });

  it('name longer than 64 characters', () => {
    expectRejection(
      skillMd(`name: ${'a'.repeat(65)}\ndescription: b`),
      'NAME_INVALID',
      'at most 64 characters, got 65',
    );
  });

  it('name different from the folder', () => {
    expectRejection(
      skillMd('name: other-name\ndescription: b'),
      'NAME_FOLDER_MISMATCH',
      'must match the folder name "my-skill"',
      {
        folderName: 'my-skill',
      },
    );
  });

  it('missing description', () => {
    expectRejection(skillMd('name: a'), 'DESCRIPTION_MISSING', 'front matter has no "description"');
  });

  it('non-string description', () => {
    expectRejection(skillMd('name: a\ndescription:\n  what: x'), 'DESCRIPTION_NOT_STRING', 'got a mapping');
  });

  it('empty description', () => {
    expectRejection(skillMd("name: a\ndescription: '  '"), 'DESCRIPTION_EMPTY', 'description is empty');
  });

  it('description over 1,024 characters when strict', () => {
    const files = skillMd(`name: a\ndescription: ${'d'.repeat(1025)}`);
    expect(parseSkill(files).warnings.map((warning) => warning.reason)).toEqual(['DESCRIPTION_TOO_LONG']);
    expectRejection(files, 'DESCRIPTION_TOO_LONG', 'description is 1025 characters', { strict: true });
  });

  it('compatibility over 500 characters when strict', () => {
    const files = skillMd(`name: a\ndescription: b\ncompatibility: ${'c'.repeat(501)}`);
    expect(parseSkill(files).warnings.map((warning) => warning.reason)).toEqual(['COMPATIBILITY_TOO_LONG']);
    expectRejection(files, 'COMPATIBILITY_TOO_LONG', 'compatibility is 501 characters', { strict: true });
  });
});
