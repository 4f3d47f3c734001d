import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import {
  DEFAULT_WORKSPACE_CONFIG,
  type WorkspaceConfig,
} from '../../../src/features/workspace/rules/config.js';
import { dbTest } from '../../support/fixtures.js';
import { call, output, servicesWith, WORKSPACE, workspaceRun, writeFile } from '../../support/workspace.js';

const config: WorkspaceConfig = {
  ...DEFAULT_WORKSPACE_CONFIG,
  profiles: {
    reviewer: { visible: ['output', 'inputs'], writable: [] },
    chapters: { writable: ['output/chapters'] },
  },
};

/** The test's services run the workspace tools under `config`, not the default roots. */
const test = dbTest.extend<{ services: Services }>({
  services: async ({ testDb }, use) => {
    const services = await servicesWith(testDb, config);
    await use(services);
    await services.stop();
  },
});

describe('profiles narrow the roots of a workspace', () => {
  test('a reviewer sees only output/ and inputs/ and writes nowhere', async ({ services }) => {
    const author = await workspaceRun(services);
    await writeFile(services, author.id, 'output/draft.md', 'draft');
    await writeFile(services, author.id, 'scratch/notes.md', 'private notes');
    const reviewer = await workspaceRun(services, { profileId: 'reviewer' });
    const listed = await call(services, reviewer.id, 'list_files');
    expect(output(listed)).toMatchObject({
      roots: [
        { path: 'inputs', writable: false },
        { path: 'output', writable: false },
      ],
      files: [{ path: 'output/draft.md', size: 5 }],
      total: 1,
    });
    const hidden = await call(services, reviewer.id, 'read_file', { path: 'scratch/notes.md' });
    expect(hidden.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'path_not_visible',
      message:
        '"scratch/notes.md" is outside the folders you can see (inputs/, output/); use a path inside one of them',
    });
    const write = await call(services, reviewer.id, 'write_file', {
      path: 'output/review.md',
      content: 'ok',
      mode: 'create',
    });
    expect(write.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'path_not_writable',
      message: '"output/review.md" is not in a folder you may write (none); write your files there instead',
    });
    const listHidden = await call(services, reviewer.id, 'list_files', { prefix: 'scratch' });
    expect(listHidden.error).toMatchObject({ kind: 'RECOVERABLE', code: 'path_not_visible' });
  });

  test('a profile may be narrowed to a folder inside a root', async ({ services }) => {
    const run = await workspaceRun(services, { profileId: 'chapters' });
    const listed = await call(services, run.id, 'list_files');
    expect(output(listed).roots).toEqual([
      { path: 'inputs', writable: false },
      { path: 'output', writable: false },
      { path: 'output/chapters', writable: true },
      { path: 'persist', writable: false },
      { path: 'plan', writable: false },
      { path: 'scratch', writable: false },
      { path: 'summaries', writable: false },
    ]);
    const outside = await call(services, run.id, 'write_file', {
      path: 'output/index.md',
      content: 'x',
      mode: 'create',
    });
    expect(outside.error).toMatchObject({ code: 'path_not_writable' });
    const inside = await call(services, run.id, 'write_file', {
      path: 'output/chapters/01.md',
      content: 'Once upon a time.',
      mode: 'create',
    });
    expect(inside.status).toBe('COMPLETED');
    expect((await services.workspaces.store.files(WORKSPACE)).map((f) => f.path)).toEqual([
      'output/chapters/01.md',
    ]);
  });

  test('a profile without an entry keeps the workspace roots', async ({ services }) => {
    const run = await workspaceRun(services, { profileId: 'someone' });
    const listed = await call(services, run.id, 'list_files');
    expect(
      output(listed)
        .roots.filter((r: { writable: boolean }) => r.writable)
        .map((r: { path: string }) => r.path),
    ).toEqual(['output', 'persist', 'plan', 'scratch', 'summaries']);
  });
});
