import { describe, expect } from 'vitest';
import { workspaceTest as test } from '../../support/fixtures.js';
import { eventTypes } from '../../support/lifecycle.js';
import { call, hash, output, WORKSPACE, workspaceRun, writeFile } from '../../support/workspace.js';

describe('workspace files through the tool-call lifecycle', () => {
  test('the first write creates the workspace with the default roots, a file and checkpoint #1', async ({
    services,
    run,
  }) => {
    const done = await call(services, run.id, 'write_file', {
      path: 'output/report.md',
      content: '# Report\n',
      mode: 'create',
    });
    expect(done.status).toBe('COMPLETED');
    expect(output(done)).toEqual({
      path: 'output/report.md',
      sha256: hash('# Report\n'),
      size: 9,
      created: true,
      checkpoint: { id: expect.any(String), number: 1 },
    });
    expect(await eventTypes(services, { callId: done.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'workspace_changed',
      'checkpoint_created',
      'tool_call_completed',
    ]);
    const workspace = await services.workspaces.store.get(WORKSPACE);
    expect(workspace!.roots).toEqual([
      { path: 'output', writable: true },
      { path: 'scratch', writable: true },
      { path: 'plan', writable: true },
      { path: 'summaries', writable: true },
      { path: 'persist', writable: true },
      { path: 'inputs', writable: false },
    ]);
  });

  test('the write journals what changed and the checkpoint it made', async ({ services, run }) => {
    const done = await writeFile(services, run.id, 'output/a.txt', 'a\n');
    const events = await services.journal.read({ callId: done.id, limit: 10 });
    const checkpointId = output(done).checkpoint.id;
    expect(events.find((e) => e.type === 'workspace_changed')).toMatchObject({
      runId: run.id,
      callId: done.id,
      actor: 'tool:workspace.write_file',
      payload: {
        workspaceId: WORKSPACE,
        checkpointId,
        checkpoint: 1,
        reason: 'write',
        changes: [{ path: 'output/a.txt', kind: 'add', sha256: hash('a\n'), size: 2 }],
        omittedChanges: 0,
      },
    });
    expect(events.find((e) => e.type === 'checkpoint_created')!.payload).toEqual({
      workspaceId: WORKSPACE,
      checkpointId,
      checkpoint: 1,
      reason: 'write',
      label: null,
      fileCount: 1,
      restoredFrom: null,
    });
  });

  test('list_files shows the visible roots and files, filtered by a folder prefix', async ({
    services,
    run,
  }) => {
    await writeFile(services, run.id, 'output/b.md', 'bb');
    await writeFile(services, run.id, 'output/a.md', 'a');
    await writeFile(services, run.id, 'scratch/n.txt', 'n');
    const all = await call(services, run.id, 'list_files');
    expect(all.status).toBe('COMPLETED');
    expect(output(all).files.map((f: { path: string }) => f.path)).toEqual([
      'output/a.md',
      'output/b.md',
      'scratch/n.txt',
    ]);
    expect(output(all).roots).toEqual([
      { path: 'inputs', writable: false },
      { path: 'output', writable: true },
      { path: 'persist', writable: true },
      { path: 'plan', writable: true },
      { path: 'scratch', writable: true },
      { path: 'summaries', writable: true },
    ]);
    const folder = await call(services, run.id, 'list_files', { prefix: 'output/', limit: 1 });
    expect(output(folder)).toEqual({
      roots: output(all).roots,
      files: [{ path: 'output/a.md', size: 1, sha256: hash('a') }],
      total: 2,
      truncated: true,
      summary: 'Listed 2 files in output/: output/a.md and 1 more.',
    });
    expect(folder.result!.content[0]).toEqual({
      type: 'text',
      text:
        'Folders: inputs/ (read-only), output/ (writable), persist/ (writable), plan/ (writable), scratch/ (writable), summaries/ (writable)\n' +
        '2 files:\noutput/a.md  1 bytes\n… and 1 more; raise limit or list a folder',
    });
  });

  test('read_file returns the content and the hash of the whole file', async ({ services, run }) => {
    await writeFile(services, run.id, 'output/poem.txt', 'one\ntwo\nthree\n');
    const read = await call(services, run.id, 'read_file', {
      path: 'output/poem.txt',
      startLine: 2,
      endLine: 2,
    });
    expect(read.status).toBe('COMPLETED');
    expect(output(read)).toEqual({
      path: 'output/poem.txt',
      sha256: hash('one\ntwo\nthree\n'),
      size: 14,
      content: 'two\n',
      startLine: 2,
      endLine: 2,
      startChar: 4,
      endChar: 8,
      totalLines: 3,
      totalChars: 14,
      truncated: false,
      next: null,
      summary: `Read output/poem.txt (lines 2-2 of 3, characters 4-8 of 14; 14 bytes; sha256 ${hash('one\ntwo\nthree\n')}).`,
    });
    expect(read.result!.content).toEqual([
      {
        type: 'text',
        text: `output/poem.txt (lines 2-2 of 3, characters 4-8 of 14; 14 bytes; sha256 ${hash('one\ntwo\nthree\n')}).`,
      },
      { type: 'text', text: 'two\n' },
    ]);
  });

  test('reading a missing file or a folder is a recoverable error', async ({ services, run }) => {
    await writeFile(services, run.id, 'output/dir/a.txt', 'a');
    const missing = await call(services, run.id, 'read_file', { path: 'output/nope.txt' });
    expect(missing.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'file_not_found',
      message: '"output/nope.txt" does not exist; list files with workspace.list_files',
    });
    const folder = await call(services, run.id, 'read_file', { path: 'output/dir' });
    expect(folder.error).toMatchObject({ kind: 'RECOVERABLE', code: 'is_directory' });
    expect((await services.runs.get(run.id))!.status).toBe('RUNNING');
  });

  test('a path that escapes the workspace fails the call and the run, and nothing is stored', async ({
    services,
    run,
  }) => {
    const escaped = await call(services, run.id, 'write_file', {
      path: 'output/../../etc/passwd',
      content: 'root::0:0',
      mode: 'create',
    });
    expect(escaped.status).toBe('FAILED');
    expect(escaped.error).toEqual({
      kind: 'SYSTEM_FAILURE',
      code: 'path_escape',
      message: `path "output/../../etc/passwd" uses '..' to leave the workspace (path_traversal)`,
    });
    expect((await services.runs.get(run.id))!.status).toBe('FAILED');
    // The workspace exists since createRun claimed it for u1, but holds nothing.
    expect(await services.workspaces.store.files(WORKSPACE)).toEqual([]);
    expect(await services.workspaces.store.checkpoints(WORKSPACE)).toEqual([]);
    expect(await eventTypes(services, { runId: run.id })).toEqual([
      'run_started',
      'tool_call_requested',
      'tool_call_started',
      'tool_call_failed',
      'run_failed',
    ]);
  });

  test('an ill-formed path is a recoverable error and the run goes on', async ({ services, run }) => {
    const bad = await call(services, run.id, 'write_file', {
      path: 'output/CON.txt',
      content: 'x',
      mode: 'create',
    });
    expect(bad.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'path_reserved_name',
      message: 'name "CON.txt" is a reserved device name on Windows; rename it',
    });
    expect((await services.runs.get(run.id))!.status).toBe('RUNNING');
  });

  test('writing outside a writable root is path_not_writable; reading outside the visible ones, path_not_visible', async ({
    services,
    run,
  }) => {
    const readOnly = await call(services, run.id, 'write_file', {
      path: 'inputs/brief.md',
      content: 'x',
      mode: 'create',
    });
    expect(readOnly.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'path_not_writable',
      message:
        '"inputs/brief.md" is not in a folder you may write (output/, persist/, plan/, scratch/, summaries/); write your files there instead',
    });
    const outside = await call(services, run.id, 'write_file', {
      path: 'notes.md',
      content: 'x',
      mode: 'create',
    });
    expect(outside.error).toMatchObject({ kind: 'RECOVERABLE', code: 'path_not_writable' });
    const hidden = await call(services, run.id, 'read_file', { path: 'secrets/key.txt' });
    expect(hidden.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'path_not_visible',
      message:
        '"secrets/key.txt" is outside the folders you can see (inputs/, output/, persist/, plan/, scratch/, summaries/); use a path inside one of them',
    });
  });

  test('a file cannot take the name of a folder, nor sit beneath a file', async ({ services, run }) => {
    await writeFile(services, run.id, 'output/a/b.txt', 'b');
    const onFolder = await call(services, run.id, 'write_file', {
      path: 'output/a',
      content: 'x',
      mode: 'create',
    });
    expect(onFolder.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'is_directory',
      message:
        '"output/a" is a folder (it holds "output/a/b.txt"), so it cannot also be a file; choose another name',
    });
    const beneath = await call(services, run.id, 'write_file', {
      path: 'output/a/b.txt/c',
      content: 'x',
      mode: 'create',
    });
    expect(beneath.error).toMatchObject({ kind: 'RECOVERABLE', code: 'parent_is_file' });
  });

  test('a run without a workspace gets a recoverable no_workspace error', async ({ services }) => {
    const run = await workspaceRun(services, { workspaceId: null });
    const listed = await call(services, run.id, 'list_files');
    expect(listed.error).toMatchObject({ kind: 'RECOVERABLE', code: 'no_workspace' });
  });
});
