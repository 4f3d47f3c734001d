import { readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { workspaceTest as test } from '../../support/fixtures.js';
import { eventTypes } from '../../support/lifecycle.js';
import { call, hash, output, WORKSPACE, writeFile } from '../../support/workspace.js';

const patch = (...body: string[]) => ['*** Begin Patch', ...body, '*** End Patch'].join('\n');
const SCENARIO_015 = new URL(
  '../../fixtures/patches/scenarios/015_failure_after_partial_success_leaves_changes/',
  import.meta.url,
);

async function snapshot(services: Services) {
  const { files } = await services.workspaces.admin.exportFiles(WORKSPACE, null);
  return Object.fromEntries(files.map((f) => [f.path, f.content.toString()]));
}

describe('apply_patch', () => {
  test('one patch adds, updates, moves and deletes files together, as one checkpoint', async ({
    services,
    run,
  }) => {
    await writeFile(services, run.id, 'output/report.md', '# Report\n\nDraft text.\n\nEnd.\n');
    await writeFile(services, run.id, 'scratch/old-name.txt', 'keep me\n');
    await writeFile(services, run.id, 'scratch/notes.txt', 'temporary\n');
    const done = await call(services, run.id, 'apply_patch', {
      patch: patch(
        '*** Add File: output/summary.md',
        '+Short summary.',
        '*** Update File: output/report.md',
        '@@ # Report',
        ' ',
        '-Draft text.',
        '+Final text.',
        '*** Update File: scratch/old-name.txt',
        '*** Move to: scratch/new-name.txt',
        '*** Delete File: scratch/notes.txt',
      ),
    });
    expect(done.status).toBe('COMPLETED');
    const report = '# Report\n\nFinal text.\n\nEnd.\n';
    expect(output(done)).toEqual({
      changes: [
        { path: 'output/summary.md', kind: 'add', sha256: hash('Short summary.\n'), size: 15 },
        { path: 'output/report.md', kind: 'update', sha256: hash(report), size: Buffer.byteLength(report) },
        {
          path: 'scratch/new-name.txt',
          kind: 'move',
          from: 'scratch/old-name.txt',
          sha256: hash('keep me\n'),
          size: 8,
        },
        { path: 'scratch/notes.txt', kind: 'delete' },
      ],
      checkpoint: { id: expect.any(String), number: 4 },
    });
    expect(await snapshot(services)).toEqual({
      'output/report.md': report,
      'output/summary.md': 'Short summary.\n',
      'scratch/new-name.txt': 'keep me\n',
    });
    expect(done.result!.content[0]).toEqual({
      type: 'text',
      text:
        'Patch applied (4 changes): added output/summary.md; updated output/report.md; ' +
        'moved scratch/old-name.txt to scratch/new-name.txt; deleted scratch/notes.txt; checkpoint #4.',
    });
    expect(await eventTypes(services, { callId: done.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'workspace_changed',
      'checkpoint_created',
      'tool_call_completed',
    ]);
  });

  test('scenario 015: unlike Codex, a failure after a successful Add leaves the workspace unchanged', async ({
    services,
    run,
  }) => {
    await writeFile(services, run.id, 'output/existing.txt', 'untouched\n');
    const before = await snapshot(services);
    // The fixture's paths sit at the top level; here they live under output/, a writable root.
    const fixture = readFileSync(new URL('patch.txt', SCENARIO_015), 'utf8').replace(
      /^(\*\*\* (?:Add|Update) File: )/gm,
      '$1output/',
    );
    const failed = await call(services, run.id, 'apply_patch', { patch: fixture });
    expect(failed.status).toBe('FAILED');
    expect(failed.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'file_not_found',
      message:
        '"*** Update File: output/missing.txt" (line 4): file "output/missing.txt" does not exist. Use "*** Add File:" to create it. The whole patch was rejected, so no file was changed.',
    });
    // Codex would have left output/created.txt behind (the fixture's expected/ folder); nothing changed here.
    expect(await snapshot(services)).toEqual(before);
    expect((await services.workspaces.store.checkpoints(WORKSPACE)).map((c) => c.number)).toEqual([1]);
    expect(await eventTypes(services, { callId: failed.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'tool_call_failed',
    ]);
  });

  test('context that is not found names the file, the hunk and the lines, and changes nothing', async ({
    services,
    run,
  }) => {
    await writeFile(services, run.id, 'output/a.md', 'alpha\nbeta\n');
    await writeFile(services, run.id, 'output/b.md', 'one\ntwo\n');
    const before = await snapshot(services);
    const failed = await call(services, run.id, 'apply_patch', {
      patch: patch(
        '*** Update File: output/a.md',
        '@@',
        '-alpha',
        '+ALPHA',
        '*** Update File: output/b.md',
        '@@',
        ' one',
        '-three',
        '+3',
      ),
    });
    expect(failed.error).toMatchObject({ kind: 'RECOVERABLE', code: 'lines_not_found' });
    expect(failed.error!.message).toContain('"*** Update File: output/b.md" (line 6), hunk 1 (line 7)');
    expect(failed.error!.message).toContain('```\none\nthree\n```');
    expect(failed.result!.structured).toEqual({
      code: 'lines_not_found',
      line: 7,
      path: 'output/b.md',
      hunk: 1,
      expected: ['one', 'three'],
    });
    expect(await snapshot(services)).toEqual(before);
  });

  test('a patch path that escapes fails the run before anything is read or written', async ({
    services,
    run,
  }) => {
    await writeFile(services, run.id, 'output/a.md', 'a\n');
    const before = await snapshot(services);
    const failed = await call(services, run.id, 'apply_patch', {
      patch: patch('*** Add File: output/ok.md', '+fine', '*** Add File: output/../../outside.md', '+bad'),
    });
    expect(failed.error).toEqual({
      kind: 'SYSTEM_FAILURE',
      code: 'path_escape',
      message: `line 4: path "output/../../outside.md" uses '..' to leave the workspace (path_traversal)`,
    });
    expect((await services.runs.get(run.id))!.status).toBe('FAILED');
    expect(await snapshot(services)).toEqual(before);
    expect((await eventTypes(services, { runId: run.id })).slice(-2)).toEqual([
      'tool_call_failed',
      'run_failed',
    ]);
  });

  test('a patch touching a read-only root is refused whole', async ({ services, run }) => {
    const failed = await call(services, run.id, 'apply_patch', {
      patch: patch('*** Add File: output/ok.md', '+fine', '*** Add File: inputs/brief.md', '+no'),
    });
    expect(failed.error).toMatchObject({ kind: 'RECOVERABLE', code: 'path_not_writable' });
    expect(failed.error!.message).toContain('"inputs/brief.md" is not in a folder you may write');
    expect(await services.workspaces.store.files(WORKSPACE)).toEqual([]);
    expect(await services.workspaces.store.checkpoints(WORKSPACE)).toEqual([]);
  });

  test('a malformed patch is a recoverable error that says what is wrong', async ({ services, run }) => {
    const failed = await call(services, run.id, 'apply_patch', {
      patch: '*** Begin Patch\n*** Frobnicate File: x\n*** End Patch',
    });
    expect(failed.error).toMatchObject({ kind: 'RECOVERABLE', code: 'invalid_hunk_header' });
    expect(failed.error!.message).toContain('invalid hunk header at line 2');
  });
});
