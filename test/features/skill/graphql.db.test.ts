import { describe, expect } from 'vitest';
import { skillFolder } from '../../support/chat.js';
import { dbTest as test } from '../../support/fixtures.js';

describe('skills over GraphQL', () => {
  const importSkills =
    'mutation($skills: [SkillFolderInput!]!) { importSkills(skills: $skills) { name description warnings files { path chars } } }';

  test('importSkills stores folders and skill(name) reads their files', async ({ gql }) => {
    const folder = skillFolder('internal-comms');
    const res = await gql(importSkills, { skills: [folder] });
    expect(res.errors).toBeUndefined();
    expect(res.data!.importSkills[0]).toMatchObject({ name: 'internal-comms', warnings: [] });
    const read = await gql('{ skill(name: "internal-comms") { files { path content } } }');
    expect(read.data!.skill.files).toEqual(folder.files.map(({ path, content }) => ({ path, content })));
  });

  test('a malformed skill is BAD_USER_INPUT naming the file and the problem', async ({ gql }) => {
    const res = await gql(importSkills, {
      skills: [
        {
          folderName: 'bad',
          files: [{ path: 'SKILL.md', content: '---\nname: Bad Name\ndescription: d\n---\n' }],
        },
      ],
    });
    expect(res.errors![0]).toMatchObject({
      message:
        'bad/SKILL.md: name "Bad Name" must use only lowercase letters, digits and single hyphens, not at the start or end',
      extensions: { code: 'BAD_USER_INPUT', reason: 'NAME_INVALID', file: 'bad/SKILL.md' },
    });
  });

  test('skill rules decide visibleSkills', async ({ gql }) => {
    await gql(importSkills, { skills: [skillFolder('internal-comms'), skillFolder('brand-guidelines')] });
    await gql('mutation { setSkillRule(input: { pattern: "*", effect: VISIBLE }) { id } }');
    const deny = await gql(
      'mutation { setSkillRule(input: { profileId: "p1", pattern: "brand-*", effect: DENY, reason: "off-brand" }) { id effect reason } }',
    );
    expect(deny.data!.setSkillRule).toMatchObject({ effect: 'DENY', reason: 'off-brand' });
    expect((await gql('{ visibleSkills(profileId: "p1") { name } }')).data!.visibleSkills).toEqual([
      { name: 'internal-comms' },
    ]);
    expect((await gql('{ skillRules(profileId: "p1") { pattern effect } }')).data!.skillRules).toEqual([
      { pattern: '*', effect: 'VISIBLE' },
      { pattern: 'brand-*', effect: 'DENY' },
    ]);
    await gql(`mutation { removeSkillRule(id: "${deny.data!.setSkillRule.id}") }`);
    expect((await gql('{ visibleSkills(profileId: "p1") { name } }')).data!.visibleSkills).toHaveLength(2);
  });

  test('a rule pattern that is not a skill name or glob is refused', async ({ gql }) => {
    const res = await gql(
      'mutation { setSkillRule(input: { pattern: "Bad/Name", effect: VISIBLE }) { id } }',
    );
    expect(res.errors![0]).toMatchObject({
      message: 'input.pattern: must be a skill name or a glob of a-z 0-9 - * ?',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });
});
