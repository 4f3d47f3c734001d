import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { workspaceCommands } from '../../../src/features/workspace/cli.js';
import { runCommand, tempDirs } from '../../support/cli.js';
import { workspaceTest as test } from '../../support/fixtures.js';
import { WORKSPACE, writeFile } from '../../support/workspace.js';

const temp = tempDirs('ats-ws-cli-');
const cli = (services: Services, words: string[], values: Record<string, string | boolean> = {}) =>
  runCommand(workspaceCommands, services, words, values);

/** Every file under `dir`, as workspace paths → content. */
function tree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string, prefix: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(at, entry.name), `${prefix}${entry.name}/`);
      else files[`${prefix}${entry.name}`] = readFileSync(join(at, entry.name), 'utf8');
    }
  };
  walk(dir, '');
  return files;
}

const contents = async (services: Services, id: string) =>
  Object.fromEntries(
    (await services.workspaces.admin.exportFiles(id, null)).files.map((f) => [f.path, f.content.toString()]),
  );

describe('workspace export and import', () => {
  test('export then import into a new workspace gives back the same files', async ({ services, run }) => {
    await writeFile(services, run.id, 'output/report.md', '# Report\n');
    await writeFile(services, run.id, 'output/deep/nested/file.txt', 'deep\n');
    await writeFile(services, run.id, 'scratch/日本語.txt', 'unicode name\n');
    const dir = join(temp(), 'export');
    const exported = await cli(services, ['workspace', 'export', WORKSPACE, dir]);
    expect(exported).toEqual({
      code: 0,
      out: [`exported 3 files of workspace ${WORKSPACE} (current files) to ${dir}`],
      err: [],
    });
    expect(tree(dir)).toEqual({
      'output/report.md': '# Report\n',
      'output/deep/nested/file.txt': 'deep\n',
      'scratch/日本語.txt': 'unicode name\n',
    });
    const imported = await cli(services, ['workspace', 'import', dir, 'ws-copy'], { user: 'u1' });
    expect(imported).toEqual({
      code: 0,
      out: ['imported 3 files into workspace ws-copy (checkpoint #1)'],
      err: [],
    });
    expect(await contents(services, 'ws-copy')).toEqual(await contents(services, WORKSPACE));
    expect((await services.workspaces.store.get('ws-copy'))!.ownerUserId).toBe('u1');
    const [checkpoint] = await services.workspaces.store.checkpoints('ws-copy');
    expect(checkpoint).toMatchObject({ reason: 'import', createdBy: 'cli:workspace-import', runId: null });
    const events = await services.journal.read({ limit: 1000 });
    expect(
      events.filter((e) => e.actor === 'cli:workspace-import').map((e) => [e.type, e.payload.workspaceId]),
    ).toEqual([
      ['workspace_changed', 'ws-copy'],
      ['checkpoint_created', 'ws-copy'],
    ]);
  });

  test('export of a checkpoint writes the files as they were then', async ({ services, run }) => {
    await writeFile(services, run.id, 'output/a.md', 'first\n');
    await writeFile(services, run.id, 'output/a.md', 'second\n', 'replace');
    await writeFile(services, run.id, 'output/b.md', 'later\n');
    const dir = join(temp(), 'at-one');
    const result = await cli(services, ['workspace', 'export', WORKSPACE, dir], { checkpoint: '1' });
    expect(result.out).toEqual([`exported 1 files of workspace ${WORKSPACE} (checkpoint #1) to ${dir}`]);
    expect(tree(dir)).toEqual({ 'output/a.md': 'first\n' });
  });

  test('export refuses a directory that is not empty and writes nothing into it', async ({
    services,
    run,
  }) => {
    await writeFile(services, run.id, 'output/a.md', 'a');
    const dir = temp();
    writeFileSync(join(dir, 'mine.txt'), 'keep');
    await expect(cli(services, ['workspace', 'export', WORKSPACE, dir])).rejects.toThrow(
      `${dir} exists and is not an empty directory`,
    );
    expect(tree(dir)).toEqual({ 'mine.txt': 'keep' });
  });

  test('import skips hostile names, links and files outside the roots, and reads nothing outside the directory', async ({
    services,
  }) => {
    const outside = temp();
    writeFileSync(join(outside, 'secret.txt'), 'do not read');
    const dir = temp();
    mkdirSync(join(dir, 'output'));
    mkdirSync(join(dir, 'inputs'));
    writeFileSync(join(dir, 'output', 'good.md'), 'good');
    writeFileSync(join(dir, 'inputs', 'brief.md'), 'brief');
    writeFileSync(join(dir, 'output', '..\\..\\escape.txt'), 'backslash traversal');
    writeFileSync(join(dir, 'output', 'CON.txt'), 'device');
    writeFileSync(join(dir, 'output', 'trailing. '), 'trailing');
    writeFileSync(join(dir, 'output', 'a:b.txt'), 'colon');
    writeFileSync(join(dir, 'output', 'bell\u0007.txt'), 'control');
    writeFileSync(join(dir, 'top-level.txt'), 'no root');
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'output', 'link.txt'));
    symlinkSync(outside, join(dir, 'output', 'linked-dir'));
    const result = await cli(services, ['workspace', 'import', dir, 'ws-hostile'], { 'no-user': true });
    expect(result.code).toBe(1);
    expect(result.out).toEqual(['imported 2 files into workspace ws-hostile (checkpoint #1)']);
    expect([...result.err].sort()).toEqual(
      [
        'skipped "output/link.txt": symbolic link (not followed)',
        'skipped "output/linked-dir": symbolic link (not followed)',
        `skipped "output/..\\\\..\\\\escape.txt": path "output/..\\\\..\\\\escape.txt" uses '..' with backslashes to leave the workspace`,
        'skipped "output/CON.txt": name "CON.txt" is a reserved device name on Windows; rename it',
        `skipped "output/trailing. ": name "trailing. " ends with a dot or space; remove it`,
        `skipped "output/a:b.txt": path "output/a:b.txt" contains ':'; file names cannot contain < > : " | ? *`,
        'skipped "output/bell\\u0007.txt": path "output/bell\\u0007.txt" contains U+0007, a control or invisible formatting character that would show the approver another name than the one written; remove it',
        'skipped "top-level.txt": outside every root of the workspace',
      ].sort(),
    );
    expect(await contents(services, 'ws-hostile')).toEqual({
      'inputs/brief.md': 'brief',
      'output/good.md': 'good',
    });
  });

  test('export never writes outside the target directory', async ({ services, run }) => {
    await writeFile(services, run.id, 'output/a.md', 'a');
    const parent = temp();
    const dir = join(parent, 'target');
    await cli(services, ['workspace', 'export', WORKSPACE, dir]);
    expect(readdirSync(parent)).toEqual(['target']);
    expect(existsSync(join(dir, 'output', 'a.md'))).toBe(true);
  });

  test('import names the owner: without --user or --no-user it is a usage error', async ({ services }) => {
    await expect(cli(services, ['workspace', 'import', temp(), 'ws-new'])).rejects.toMatchObject({
      name: 'UsageError',
      message: 'name the user the workspace belongs to: --user <user-id> (or --no-user)',
    });
  });

  test("import for one user into another user's workspace is a CONFLICT and imports nothing", async ({
    services,
    run: _claimed,
  }) => {
    const dir = temp();
    mkdirSync(join(dir, 'output'));
    writeFileSync(join(dir, 'output', 'a.md'), 'a');
    await expect(
      cli(services, ['workspace', 'import', dir, WORKSPACE], { user: 'bob' }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `workspace ${WORKSPACE} belongs to u1, not bob; reassign it first (workspace owner)`,
    });
    expect(await services.workspaces.store.files(WORKSPACE)).toEqual([]);
  });

  test('workspace owner gives a workspace to another user', async ({ services, run: _claimed }) => {
    expect(await cli(services, ['workspace', 'owner', WORKSPACE], { user: 'bob' })).toEqual({
      code: 0,
      out: [`workspace ${WORKSPACE} now belongs to bob`],
      err: [],
    });
    expect((await services.workspaces.store.get(WORKSPACE))!.ownerUserId).toBe('bob');
  });
});
