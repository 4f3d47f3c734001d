import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { createLogger } from '../../../src/app/logger.js';
import { createServices, type Services } from '../../../src/app/services.js';
import type { RunRow } from '../../../src/calls/tables.js';
import { readSkillFolders } from '../../../src/features/skill/folders.js';
import type { SkillFolder } from '../../../src/features/skill/inputs.js';
import { fixtureSkills, SKILLS_DIR, skillFolder } from '../../support/chat.js';
import { dbTest } from '../../support/fixtures.js';
import { admin, agent, allow, eventTypes, newRun, structured } from '../../support/lifecycle.js';

const completed = ['tool_call_requested', 'tool_call_started', 'tool_call_completed'];
const skillMd = (name: string) => readFileSync(join(SKILLS_DIR, name, 'SKILL.md'), 'utf8');

async function importAll(services: Services) {
  await services.skills.importSkills(fixtureSkills.map(skillFolder), 'test');
}

/**
 * `run`: an agent's run on profile p1 that may call the skill tools, every fixture skill imported
 * and visible except claude-api, which p1 is denied.
 */
const test = dbTest.extend<{ run: RunRow }>({
  run: async ({ services }, use) => {
    await importAll(services);
    await services.skills.setRule({ pattern: '*', effect: 'VISIBLE' }, 'test');
    await services.skills.setRule({ profileId: 'p1', pattern: 'claude-api', effect: 'DENY' }, 'test');
    await allow(services, 'skill.*');
    await use(await newRun(services));
  },
});

describe('skill import', () => {
  test.for(fixtureSkills)(
    '%s imports with every file and reads back unchanged',
    async (name, { services }) => {
      const folder = skillFolder(name);
      const [skill] = await services.skills.importSkills([folder], 'test');
      expect(skill!.name).toBe(name);
      for (const file of folder.files)
        expect((await services.skills.file(name, file.path))!.content).toBe(file.content);
      expect((await services.skills.files(name)).map((f) => f.path)).toEqual(
        folder.files.map((f) => f.path).sort(),
      );
    },
  );

  test('keeps the multi-line description, the license and a warning for the over-long description', async ({
    services,
  }) => {
    const [skill] = await services.skills.importSkills([skillFolder('claude-api')], 'test');
    expect(skill!.description).toMatch(/^Reference for the Claude API/);
    expect(skill!.description).toContain('\n');
    expect(skill!.license).toBe('Complete terms in LICENSE.txt');
    expect(skill!.warnings).toEqual([
      {
        reason: 'DESCRIPTION_TOO_LONG',
        message: `description is ${[...skill!.description].length} characters; the Agent Skills spec allows at most 1024`,
      },
    ]);
  });

  test('reads every skill folder below a directory', async ({ services }) => {
    const { folders } = readSkillFolders(SKILLS_DIR);
    expect(folders.map((folder) => folder.folderName)).toEqual(fixtureSkills);
    expect(folders.map((folder) => folder.skipped)).toEqual(fixtureSkills.map(() => []));
    expect((await services.skills.importSkills(folders, 'test')).map((skill) => skill.name)).toEqual(
      fixtureSkills,
    );
  });

  test('reads a single skill folder', () => {
    const { folders } = readSkillFolders(join(SKILLS_DIR, 'internal-comms'));
    expect(folders).toHaveLength(1);
    expect(folders[0]!.files.map((file) => file.path)).toEqual([
      'LICENSE.txt',
      'SKILL.md',
      'examples/3p-updates.md',
      'examples/company-newsletter.md',
      'examples/faq-answers.md',
      'examples/general-comms.md',
    ]);
  });

  const malformed: Array<[string, SkillFolder, string]> = [
    [
      'no name',
      { folderName: 'x', files: [{ path: 'SKILL.md', content: '---\ndescription: d\n---\n' }] },
      'x/SKILL.md: front matter has no "name"',
    ],
    [
      'a name that is not the folder name',
      { folderName: 'x', files: [{ path: 'SKILL.md', content: '---\nname: y\ndescription: d\n---\n' }] },
      'x/SKILL.md: name "y" must match the folder name "x"',
    ],
    [
      'no SKILL.md',
      { folderName: 'x', files: [{ path: 'README.md', content: 'hi' }] },
      'x/SKILL.md: the skill folder has no SKILL.md',
    ],
    [
      'no front matter',
      { folderName: 'x', files: [{ path: 'SKILL.md', content: '# Title\n' }] },
      "x/SKILL.md:1: must start with YAML front matter (a '---' line)",
    ],
  ];
  test.for(malformed)(
    'rejects a skill with %s, naming the problem, and stores nothing',
    async ([, folder, message], { services }) => {
      await expect(
        services.skills.importSkills([skillFolder('brand-guidelines'), folder], 'test'),
      ).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        message,
      });
      expect(await services.skills.list()).toEqual([]);
    },
  );

  test('importing a skill again replaces its files', async ({ services }) => {
    const files = (body: string, extra: string[]) => ({
      folderName: 'demo',
      files: [
        { path: 'SKILL.md', content: `---\nname: demo\ndescription: ${body}\n---\n` },
        ...extra.map((path) => ({ path, content: path })),
      ],
    });
    await services.skills.importSkills([files('one', ['a.md', 'b.md'])], 'test');
    await services.skills.importSkills([files('two', ['c.md'])], 'test');
    expect((await services.skills.get('demo'))!.description).toBe('two');
    expect((await services.skills.files('demo')).map((file) => file.path)).toEqual(['SKILL.md', 'c.md']);
  });
});

describe('skill visibility', () => {
  test('no rule shows no skill', async ({ services }) => {
    await importAll(services);
    expect(await services.skills.visible('p1')).toEqual([]);
  });

  test('a VISIBLE rule for every profile shows matching skills with their files', async ({ services }) => {
    await importAll(services);
    await services.skills.setRule({ pattern: 'brand-*', effect: 'VISIBLE' }, 'test');
    expect(await services.skills.visible('p1')).toEqual([
      {
        name: 'brand-guidelines',
        description: expect.stringMatching(/^Applies Anthropic's official brand colors/),
        files: [
          { path: 'LICENSE.txt', chars: expect.any(Number) },
          { path: 'SKILL.md', chars: skillMd('brand-guidelines').length },
        ],
        unavailable: [],
      },
    ]);
  });

  test("deny wins over visible, and a profile's rules do not apply to another profile", async ({
    services,
  }) => {
    await importAll(services);
    await services.skills.setRule({ pattern: '*', effect: 'VISIBLE' }, 'test');
    await services.skills.setRule({ profileId: 'p1', pattern: 'claude-api', effect: 'DENY' }, 'test');
    await services.skills.setRule({ profileId: 'p1', pattern: 'mcp-*', effect: 'DENY' }, 'test');
    expect((await services.skills.visible('p1')).map((s) => s.name)).toEqual([
      'brand-guidelines',
      'internal-comms',
      'skill-creator',
    ]);
    expect((await services.skills.visible('p2')).map((s) => s.name)).toEqual(fixtureSkills);
  });

  test('a rule can be replaced and removed', async ({ services }) => {
    await importAll(services);
    const rule = await services.skills.setRule(
      { profileId: 'p1', pattern: 'claude-api', effect: 'VISIBLE' },
      'test',
    );
    await services.skills.setRule(
      { id: rule.id, profileId: 'p1', pattern: 'skill-creator', effect: 'VISIBLE' },
      'test',
    );
    expect((await services.skills.visible('p1')).map((s) => s.name)).toEqual(['skill-creator']);
    await services.skills.removeRule(rule.id);
    expect(await services.skills.visible('p1')).toEqual([]);
  });
});

describe('skill tools through the lifecycle', () => {
  const call = (services: Services, runId: string, name: string, args: Record<string, unknown> = {}) =>
    services.calls.request({ runId, name, arguments: args }, agent);

  test('skill.list returns the summaries the profile may see', async ({ services, run }) => {
    const done = await call(services, run.id, 'skill.list');
    expect(done.status).toBe('COMPLETED');
    expect(structured(done).skills.map((s: { name: string }) => s.name)).toEqual([
      'brand-guidelines',
      'internal-comms',
      'mcp-builder',
      'skill-creator',
    ]);
    expect(done.result!.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/^4 skills available/),
    });
    expect(await eventTypes(services, { callId: done.id })).toEqual(completed);
  });

  test('skill.read returns a whole SKILL.md with its position and the budget left', async ({
    services,
    run,
  }) => {
    const done = await call(services, run.id, 'skill.read', { name: 'brand-guidelines' });
    const content = skillMd('brand-guidelines');
    expect(structured(done)).toMatchObject({
      ref: `skill:brand-guidelines/SKILL.md#L1-L${content.split('\n').length - 1}`,
      path: 'SKILL.md',
      section: null,
      text: content,
      start: 0,
      end: content.length,
      truncated: false,
      nextChar: null,
      budget: {
        perCall: 20_000,
        perRun: 80_000,
        usedThisRun: content.length,
        leftThisRun: 80_000 - content.length,
      },
    });
    expect(await eventTypes(services, { callId: done.id })).toEqual(completed);
  });

  test('skill.read reads one section by heading, with its subsections', async ({ services, run }) => {
    const done = await call(services, run.id, 'skill.read', {
      name: 'brand-guidelines',
      section: 'Brand Guidelines > Colors',
    });
    const lines = skillMd('brand-guidelines').split('\n');
    expect(structured(done)).toMatchObject({
      section: ['Anthropic Brand Styling', 'Brand Guidelines', 'Colors'],
      startLine: 17,
      endLine: 31,
      text: `${lines.slice(16, 31).join('\n')}\n`,
    });
  });

  test('skill.read reads another file by line range and by character range', async ({ services, run }) => {
    const file = readFileSync(join(SKILLS_DIR, 'mcp-builder/reference/evaluation.md'), 'utf8');
    const byLines = await call(services, run.id, 'skill.read', {
      name: 'mcp-builder',
      path: 'reference/evaluation.md',
      fromLine: 2,
      toLine: 4,
    });
    expect(structured(byLines).text).toBe(`${file.split('\n').slice(1, 4).join('\n')}\n`);
    const byChars = await call(services, run.id, 'skill.read', {
      name: 'mcp-builder',
      path: 'reference/evaluation.md',
      fromChar: 10,
      toChar: 60,
    });
    expect(structured(byChars)).toMatchObject({ text: file.slice(10, 60), start: 10, end: 60 });
  });

  test('maxChars cuts a long read and says where to continue', async ({ services, run }) => {
    const done = await call(services, run.id, 'skill.read', { name: 'skill-creator', maxChars: 1000 });
    const read = structured(done);
    expect(read.truncated).toBe(true);
    expect(read.text.length).toBeLessThanOrEqual(1000);
    expect(read.nextLine).toBe(read.endLine + 1);
    expect(skillMd('skill-creator').startsWith(read.text)).toBe(true);
    expect(done.result!.content[0]).toMatchObject({
      text: expect.stringContaining(`continue with fromLine ${read.nextLine}`),
    });
  });

  test('asking for more than the per-call limit is a recoverable error that says how much is left', async ({
    services,
    run,
  }) => {
    const done = await call(services, run.id, 'skill.read', { name: 'skill-creator', maxChars: 30_000 });
    expect(done.status).toBe('FAILED');
    expect(done.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'budget_exceeded',
      message:
        'maxChars 30000 is over the per-call limit of 20000 characters. Ask for at most 20000 (80000 are left for this run).',
    });
    expect(await eventTypes(services, { callId: done.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'tool_call_failed',
    ]);
  });

  test('the per-run budget is spent across calls, then refused with what is left', async ({
    services,
    run,
  }) => {
    const read = (fromChar: number, toChar: number) =>
      call(services, run.id, 'skill.read', { name: 'skill-creator', fromChar, toChar });
    for (let i = 0; i < 3; i++) expect((await read(i * 5_000, i * 5_000 + 20_000)).status).toBe('COMPLETED');
    const fourth = await read(0, 20_000);
    expect(structured(fourth).budget).toEqual({
      perCall: 20_000,
      perRun: 80_000,
      usedThisRun: 80_000,
      leftThisRun: 0,
    });
    const over = await read(0, 10);
    expect(over.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'budget_exhausted',
      message:
        'This run has used its whole skill reading budget of 80000 characters (0 left). Continue with what you have read.',
    });
  });

  test('a read larger than what is left of the run is refused, naming the remainder', async ({
    services,
    run,
  }) => {
    const read = (toChar: number) =>
      call(services, run.id, 'skill.read', { name: 'skill-creator', fromChar: 0, toChar });
    for (const size of [20_000, 20_000, 20_000, 5_000]) await read(size);
    const done = await read(20_000);
    expect(done.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'budget_exceeded',
      message:
        "This read would return 20000 characters but only 15000 of this run's 80000 are left. Ask for a smaller range or set maxChars to at most 15000.",
    });
  });

  test('the run budget lives in the database: a restarted server sees it, another run does not', async ({
    services,
    testDb,
    run,
  }) => {
    await call(services, run.id, 'skill.read', { name: 'skill-creator', fromChar: 0, toChar: 15_000 });
    const restarted = createServices(testDb.database, createLogger('silent'));
    await restarted.start();
    try {
      const again = await restarted.calls.request(
        {
          runId: run.id,
          name: 'skill.read',
          arguments: { name: 'brand-guidelines', fromChar: 0, toChar: 100 },
        },
        agent,
      );
      expect(structured(again).budget.usedThisRun).toBe(15_100);
    } finally {
      await restarted.stop();
    }
    const other = await newRun(services);
    const fresh = await call(services, other.id, 'skill.read', {
      name: 'brand-guidelines',
      fromChar: 0,
      toChar: 100,
    });
    expect(structured(fresh).budget.usedThisRun).toBe(100);
  });

  test('a call that runs again counts once', async ({ services }) => {
    await importAll(services);
    await services.skills.setRule({ pattern: '*', effect: 'VISIBLE' }, 'test');
    const scope = {
      runId: '00000000-0000-4000-8000-0000000000aa',
      callId: '00000000-0000-4000-8000-0000000000bb',
      profileId: null,
    };
    const limits = { perCall: 20_000, perRun: 80_000 };
    await services.skills.read({ name: 'brand-guidelines', toChar: 500 }, scope, limits);
    const again = await services.skills.read({ name: 'brand-guidelines', toChar: 500 }, scope, limits);
    expect(again.budget.usedThisRun).toBe(500);
  });

  test('a denied skill reads as not available, listing the skills that are', async ({ services, run }) => {
    const done = await call(services, run.id, 'skill.read', { name: 'claude-api' });
    expect(done.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'skill_not_found',
      message:
        'No skill named "claude-api" is available to you. Available: brand-guidelines, internal-comms, mcp-builder, skill-creator.',
    });
  });

  test('an unknown file lists the files of the skill', async ({ services, run }) => {
    const done = await call(services, run.id, 'skill.read', { name: 'brand-guidelines', path: 'nope.md' });
    expect(done.error).toMatchObject({
      code: 'file_not_found',
      message: 'The skill brand-guidelines has no file "nope.md". Its files: LICENSE.txt, SKILL.md.',
    });
  });

  test('an unknown section lists the headings', async ({ services, run }) => {
    const done = await call(services, run.id, 'skill.read', { name: 'internal-comms', section: 'Nope' });
    expect(done.error).toMatchObject({
      code: 'section_not_found',
      message:
        'No heading "Nope" in this file. Headings: ## When to use this skill; ## How to use this skill; ## Keywords.',
    });
  });

  test('a section together with a line range is a recoverable invalid_arguments error', async ({
    services,
    run,
  }) => {
    const done = await call(services, run.id, 'skill.read', {
      name: 'internal-comms',
      section: 'Keywords',
      fromLine: 2,
    });
    expect(done.error).toMatchObject({ kind: 'RECOVERABLE', code: 'invalid_arguments' });
  });

  test('the visibility rules the lifecycle uses are the admin ones', async ({ services }) => {
    await importAll(services);
    expect((await services.skills.rules()).length).toBe(0);
    await services.policy.set(
      { layer: 'PROFILE', scopeId: 'p1', toolPattern: 'skill.list', effect: 'ALLOW' },
      admin,
    );
    const run = await newRun(services);
    const done = await call(services, run.id, 'skill.list');
    expect(structured(done)).toEqual({ skills: [] });
    expect(done.result!.content).toEqual([{ type: 'text', text: 'No skills are available in this run.' }]);
  });
});

describe('what a skill folder could not give', () => {
  const call = (services: Services, runId: string, name: string, args: Record<string, unknown> = {}) =>
    services.calls.request({ runId, name, arguments: args }, agent);
  const BOM_SKILL =
    '\uFEFF---\nname: bom-skill\ndescription: Starts with a BOM.\n---\n\n# Use\n\nRead guide.pdf first.\n';

  test('a leading BOM is not counted: SkillFile.chars, the content and skill.read ranges agree', async ({
    services,
    gql,
  }) => {
    await services.skills.importSkills(
      [{ folderName: 'bom-skill', files: [{ path: 'SKILL.md', content: BOM_SKILL }] }],
      'test',
    );
    const text = BOM_SKILL.slice(1);
    const res = await gql('{ skill(name: "bom-skill") { files { path chars content } } }');
    expect(res.data!.skill.files).toEqual([{ path: 'SKILL.md', chars: text.length, content: text }]);
    await services.skills.setRule({ pattern: '*', effect: 'VISIBLE' }, 'test');
    await allow(services, 'skill.*');
    const run = await newRun(services);
    const whole = structured(await call(services, run.id, 'skill.read', { name: 'bom-skill' }));
    expect([whole.text, whole.totalChars, whole.end]).toEqual([text, text.length, text.length]);
    const tail = structured(
      await call(services, run.id, 'skill.read', { name: 'bom-skill', fromChar: text.length - 22 }),
    );
    expect(tail.text).toBe('Read guide.pdf first.\n');
  });

  test('files the import skipped are recorded, listed as unavailable and refused by skill.read with the reason', async ({
    services,
    gql,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'skill-'));
    writeFileSync(join(dir, 'SKILL.md'), BOM_SKILL.slice(1));
    writeFileSync(join(dir, 'guide.pdf'), Buffer.from('%PDF-1.7\n\xff\xfe binary', 'latin1'));
    writeFileSync(join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe]));
    const { folders } = readSkillFolders(dir);
    expect(folders[0]!.skipped).toEqual([
      { path: 'guide.pdf', reason: 'a PDF, not text' },
      { path: 'logo.png', reason: 'not UTF-8 text' },
    ]);
    await services.skills.importSkills(folders, 'test');
    const res = await gql('{ skill(name: "bom-skill") { skippedFiles { path reason } } }');
    expect(res.data!.skill.skippedFiles).toEqual(folders[0]!.skipped);

    await services.skills.setRule({ pattern: '*', effect: 'VISIBLE' }, 'test');
    await allow(services, 'skill.*');
    const run = await newRun(services);
    const list = await call(services, run.id, 'skill.list');
    expect(structured(list).skills[0].unavailable).toEqual(folders[0]!.skipped);
    expect(list.result!.content[0]).toMatchObject({
      text: expect.stringContaining(
        'Unavailable, not imported (SKILL.md may mention them; they cannot be read): guide.pdf (a PDF, not text), logo.png (not UTF-8 text)',
      ),
    });
    const read = await call(services, run.id, 'skill.read', { name: 'bom-skill', path: 'guide.pdf' });
    expect(read.error).toMatchObject({
      kind: 'RECOVERABLE',
      code: 'file_not_found',
      message:
        'The skill bom-skill has a file "guide.pdf", but it is unavailable: it was not imported (a PDF, not text). Go on without it.',
    });
  });
});
