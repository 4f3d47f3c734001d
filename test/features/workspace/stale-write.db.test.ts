import { describe, expect } from 'vitest';
import { workspaceTest as test } from '../../support/fixtures.js';
import { eventTypes } from '../../support/lifecycle.js';
import { call, hash, output, WORKSPACE, workspaceRun, writeFile } from '../../support/workspace.js';

describe('the stale-write rule', () => {
  test('replacing a file the run never read is refused with read_required, and nothing changes', async ({
    services,
    run: writer,
  }) => {
    await writeFile(services, writer.id, 'output/doc.md', 'original\n');
    const other = await workspaceRun(services);
    const blind = await call(services, other.id, 'write_file', {
      path: 'output/doc.md',
      content: 'mine',
      mode: 'replace',
    });
    expect(blind.status).toBe('FAILED');
    expect(blind.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'read_required',
      message:
        '"output/doc.md" already exists and you have not read it. Read it with workspace.read_file first, so that you do not overwrite content you have not seen.',
    });
    expect(await eventTypes(services, { callId: blind.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'tool_call_failed',
    ]);
    expect(
      (await services.workspaces.store.fileContent(WORKSPACE, 'output/doc.md'))!.content.toString(),
    ).toBe('original\n');
    expect((await services.workspaces.store.checkpoints(WORKSPACE)).map((c) => c.number)).toEqual([1]);
  });

  test('after reading it, the run may replace it', async ({ services, run: writer }) => {
    await writeFile(services, writer.id, 'output/doc.md', 'original\n');
    const other = await workspaceRun(services);
    await call(services, other.id, 'read_file', { path: 'output/doc.md' });
    const replaced = await call(services, other.id, 'write_file', {
      path: 'output/doc.md',
      content: 'new\n',
      mode: 'replace',
    });
    expect(output(replaced)).toMatchObject({ path: 'output/doc.md', sha256: hash('new\n'), created: false });
  });

  test('a file changed by another run since this run read it is a stale write', async ({
    services,
    run: first,
  }) => {
    await writeFile(services, first.id, 'output/doc.md', 'v1\n');
    const second = await workspaceRun(services);
    await call(services, second.id, 'read_file', { path: 'output/doc.md' });
    await writeFile(services, first.id, 'output/doc.md', 'v2 by the first run\n', 'replace');
    const stale = await call(services, second.id, 'write_file', {
      path: 'output/doc.md',
      content: 'v2 by the second run\n',
      mode: 'replace',
    });
    expect(stale.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'stale_write',
      message: '"output/doc.md" changed since you last read it. Read it again and redo your change.',
    });
    expect(stale.result!.structured).toEqual({ path: 'output/doc.md' });
    expect(
      (await services.workspaces.store.fileContent(WORKSPACE, 'output/doc.md'))!.content.toString(),
    ).toBe('v2 by the first run\n');
    await call(services, second.id, 'read_file', { path: 'output/doc.md' });
    const fresh = await call(services, second.id, 'write_file', {
      path: 'output/doc.md',
      content: 'merged\n',
      mode: 'replace',
    });
    expect(fresh.status).toBe('COMPLETED');
  });

  test('what a run wrote counts as read: it may replace its own file again', async ({ services, run }) => {
    await writeFile(services, run.id, 'output/doc.md', 'draft 1\n');
    const again = await call(services, run.id, 'write_file', {
      path: 'output/doc.md',
      content: 'draft 2\n',
      mode: 'replace',
    });
    expect(again.status).toBe('COMPLETED');
  });

  test('a matching expectedHash replaces without a read; a wrong one is a stale write', async ({
    services,
    run: writer,
  }) => {
    await writeFile(services, writer.id, 'output/doc.md', 'v1\n');
    const other = await workspaceRun(services);
    const wrong = await call(services, other.id, 'write_file', {
      path: 'output/doc.md',
      content: 'x',
      mode: 'replace',
      expectedHash: hash('something else'),
    });
    expect(wrong.error).toMatchObject({ kind: 'RECOVERABLE', code: 'stale_write' });
    const right = await call(services, other.id, 'write_file', {
      path: 'output/doc.md',
      content: 'v2\n',
      mode: 'replace',
      expectedHash: hash('v1\n'),
    });
    expect(output(right)).toMatchObject({ sha256: hash('v2\n'), created: false });
  });

  test('append needs no read, but honours expectedHash', async ({ services, run: writer }) => {
    await writeFile(services, writer.id, 'output/log.txt', 'a\n');
    const other = await workspaceRun(services);
    const appended = await call(services, other.id, 'write_file', {
      path: 'output/log.txt',
      content: 'b\n',
      mode: 'append',
    });
    expect(output(appended)).toMatchObject({ sha256: hash('a\nb\n'), size: 4, created: false });
    const stale = await call(services, other.id, 'write_file', {
      path: 'output/log.txt',
      content: 'c\n',
      mode: 'append',
      expectedHash: hash('a\n'),
    });
    expect(stale.error).toMatchObject({ kind: 'RECOVERABLE', code: 'stale_write' });
    const created = await call(services, other.id, 'write_file', {
      path: 'output/new.txt',
      content: 'n',
      mode: 'append',
    });
    expect(output(created)).toMatchObject({ created: true, size: 1 });
  });

  test('create refuses an existing file and replace a missing one', async ({ services, run }) => {
    await writeFile(services, run.id, 'output/doc.md', 'x');
    const exists = await call(services, run.id, 'write_file', {
      path: 'output/doc.md',
      content: 'y',
      mode: 'create',
    });
    expect(exists.error).toMatchObject({ kind: 'RECOVERABLE', code: 'file_exists' });
    const missing = await call(services, run.id, 'write_file', {
      path: 'output/none.md',
      content: 'y',
      mode: 'replace',
    });
    expect(missing.error).toMatchObject({ kind: 'RECOVERABLE', code: 'file_not_found' });
  });

  test('a patch that deletes a file the run never read is refused with read_required', async ({
    services,
    run: writer,
  }) => {
    await writeFile(services, writer.id, 'output/old.md', 'old\n');
    const other = await workspaceRun(services);
    const patch = '*** Begin Patch\n*** Delete File: output/old.md\n*** End Patch';
    const refused = await call(services, other.id, 'apply_patch', { patch });
    expect(refused.error).toMatchObject({ kind: 'RECOVERABLE', code: 'read_required' });
    await call(services, other.id, 'read_file', { path: 'output/old.md' });
    const deleted = await call(services, other.id, 'apply_patch', { patch });
    expect(output(deleted).changes).toEqual([{ path: 'output/old.md', kind: 'delete' }]);
  });
});
