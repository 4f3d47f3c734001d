import { sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import type { Services } from '../../../src/app/services.js';
import { readResource } from '../../../src/calls/resource-store.js';
import { workspaceTest as test } from '../../support/fixtures.js';
import { eventTypes } from '../../support/lifecycle.js';
import { approveAndWait, call, output, WORKSPACE, workspaceRun, writeFile } from '../../support/workspace.js';

async function currentFiles(services: Services) {
  return Object.fromEntries(
    (await services.workspaces.store.files(WORKSPACE)).map((f) => [f.path, f.sha256]),
  );
}

describe('checkpoints', () => {
  test('every change makes the next checkpoint, numbered without gaps; create_checkpoint adds a labelled one', async ({
    services,
    run,
  }) => {
    await writeFile(services, run.id, 'output/a.md', 'a');
    await call(services, run.id, 'apply_patch', {
      patch: '*** Begin Patch\n*** Add File: output/b.md\n+b\n*** End Patch',
    });
    const manual = await call(services, run.id, 'create_checkpoint', { label: 'draft complete' });
    expect(output(manual)).toEqual({
      id: expect.any(String),
      number: 3,
      label: 'draft complete',
      fileCount: 2,
      totalBytes: 3,
    });
    expect(await eventTypes(services, { callId: manual.id })).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'checkpoint_created',
      'tool_call_completed',
    ]);
    const checkpoints = await services.workspaces.store.checkpoints(WORKSPACE);
    expect(checkpoints.map((c) => [c.number, c.reason, c.label, c.runId])).toEqual([
      [1, 'write', null, run.id],
      [2, 'patch', null, run.id],
      [3, 'manual', 'draft complete', run.id],
    ]);
  });

  test('concurrent writers from several runs get gap-free numbers, each checkpoint holding the files before it', async ({
    services,
  }) => {
    const runs = await Promise.all(Array.from({ length: 8 }, () => workspaceRun(services)));
    const calls = await Promise.all(
      runs.map((run, i) =>
        call(services, run.id, 'write_file', {
          path: `output/${i}.md`,
          content: `file ${i}`,
          mode: 'create',
        }),
      ),
    );
    expect(calls.map((c) => c.status)).toEqual(Array(8).fill('COMPLETED'));
    expect(calls.map((c) => output(c).checkpoint.number).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ]);
    const checkpoints = await services.workspaces.store.checkpoints(WORKSPACE);
    expect(checkpoints.map((c) => [c.number, c.fileCount])).toEqual(
      Array.from({ length: 8 }, (_, i) => [i + 1, i + 1]),
    );
  });

  test('restore needs approval, then brings back exactly the files of the checkpoint as a new checkpoint', async ({
    services,
    run,
  }) => {
    await writeFile(services, run.id, 'output/keep.md', 'v1\n');
    await writeFile(services, run.id, 'output/change.md', 'before\n');
    const atTwo = await currentFiles(services);
    await writeFile(services, run.id, 'output/change.md', 'after\n', 'replace');
    await writeFile(services, run.id, 'output/added.md', 'new\n');
    await call(services, run.id, 'apply_patch', {
      patch: '*** Begin Patch\n*** Delete File: output/keep.md\n*** End Patch',
    });
    const held = await call(services, run.id, 'restore_checkpoint', { checkpoint: 2 });
    expect(held.status).toBe('AWAITING_APPROVAL');
    expect(await currentFiles(services)).not.toEqual(atTwo);
    const done = await approveAndWait(services, held);
    expect(done.status).toBe('COMPLETED');
    expect(await currentFiles(services)).toEqual(atTwo);
    expect(output(done)).toEqual({
      restored: { id: expect.any(String), number: 2 },
      checkpoint: { id: expect.any(String), number: 6 },
      changes: [
        { path: 'output/added.md', change: 'deleted', oldSha256: expect.any(String), newSha256: null },
        {
          path: 'output/change.md',
          change: 'modified',
          oldSha256: expect.any(String),
          newSha256: atTwo['output/change.md'],
        },
        { path: 'output/keep.md', change: 'added', oldSha256: null, newSha256: atTwo['output/keep.md'] },
      ],
    });
    expect(await eventTypes(services, { callId: held.id })).toEqual([
      'tool_call_requested',
      'tool_call_awaiting_approval',
      'tool_call_approved',
      'tool_call_started',
      'workspace_changed',
      'checkpoint_created',
      'tool_call_completed',
    ]);
    const six = await services.workspaces.store.checkpoint(WORKSPACE, '6');
    expect(six).toMatchObject({
      reason: 'restore',
      label: 'restored #2',
      restoredFrom: output(done).restored.id,
    });
    expect(await services.workspaces.store.manifest(six!.id)).toEqual(
      await services.workspaces.store.manifest(output(done).restored.id),
    );
  });

  test('the restore result carries a DiffRef whose resource is the unified diff it applied', async ({
    services,
    run,
  }) => {
    await writeFile(services, run.id, 'output/a.md', 'one\n');
    await writeFile(services, run.id, 'output/a.md', 'two\n', 'replace');
    const done = await approveAndWait(
      services,
      await call(services, run.id, 'restore_checkpoint', { checkpoint: 1 }),
    );
    const part = done.result!.content[1]!;
    const two = await services.workspaces.store.checkpoint(WORKSPACE, '2');
    expect(part).toEqual({
      type: 'diff_ref',
      uri: expect.stringMatching(/^resource:\/\/sha256\//),
      fromRef: two!.id,
      toRef: output(done).checkpoint.id,
    });
    const stored = await readResource(services.database.db, (part as { uri: string }).uri);
    expect(stored!.mimeType).toBe('text/x-diff');
    expect(stored!.content.toString()).toBe(
      '--- a/output/a.md\n+++ b/output/a.md\n@@ -1,1 +1,1 @@\n-two\n+one\n',
    );
    expect(done.result!.resourceRefs).toEqual([(part as { uri: string }).uri]);
  });

  test('after a restore the run must read a file again before replacing it', async ({ services, run }) => {
    await writeFile(services, run.id, 'output/a.md', 'one\n');
    await writeFile(services, run.id, 'output/a.md', 'two\n', 'replace');
    await approveAndWait(services, await call(services, run.id, 'restore_checkpoint', { checkpoint: 1 }));
    const blind = await call(services, run.id, 'write_file', {
      path: 'output/a.md',
      content: 'three\n',
      mode: 'replace',
    });
    expect(blind.error).toMatchObject({ kind: 'RECOVERABLE', code: 'stale_write' });
  });

  test('restoring a checkpoint that does not exist is a recoverable error', async ({ services, run }) => {
    await writeFile(services, run.id, 'output/a.md', 'a');
    const done = await approveAndWait(
      services,
      await call(services, run.id, 'restore_checkpoint', { checkpoint: 9 }),
    );
    expect(done.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'checkpoint_not_found',
      message: 'This workspace has no checkpoint #9; the latest is #1.',
    });
  });

  test('checkpoints and their manifests cannot be changed or deleted', async ({ services, run }) => {
    await writeFile(services, run.id, 'output/a.md', 'a');
    const refusal = (statement: ReturnType<typeof sql>) =>
      services.database.db.execute(statement).then(
        () => 'accepted',
        (error: Error) => ((error.cause as Error | undefined) ?? error).message,
      );
    expect(await refusal(sql`update workspace_checkpoint_files set size = 0`)).toBe(
      'workspace_checkpoint_files is immutable (UPDATE refused)',
    );
    expect(await refusal(sql`delete from workspace_checkpoints`)).toBe(
      'workspace_checkpoints is immutable (DELETE refused)',
    );
  });

  test('the diff between two checkpoints is a unified diff of the files that changed', async ({
    services,
    gql,
    run,
  }) => {
    await writeFile(services, run.id, 'output/a.md', 'line 1\nline 2\nline 3\n');
    await writeFile(services, run.id, 'output/gone.md', 'bye\n');
    await call(services, run.id, 'apply_patch', {
      patch:
        '*** Begin Patch\n*** Update File: output/a.md\n@@\n line 1\n-line 2\n+line two\n line 3\n' +
        '*** Delete File: output/gone.md\n*** Add File: output/new.md\n+hello\n*** End Patch',
    });
    const res = await gql(
      `query($id: ID!) { workspace(id: $id) { diff(from: "2", to: "3") {
        from { number } to { number } files { path change oldSha256 newSha256 } unified } } }`,
      { id: WORKSPACE },
    );
    expect(res.errors).toBeUndefined();
    const diff = res.data!.workspace.diff;
    expect(diff.from).toEqual({ number: 2 });
    expect(diff.to).toEqual({ number: 3 });
    expect(diff.files.map((f: { path: string; change: string }) => [f.path, f.change])).toEqual([
      ['output/a.md', 'MODIFIED'],
      ['output/gone.md', 'DELETED'],
      ['output/new.md', 'ADDED'],
    ]);
    expect(diff.unified).toBe(
      '--- a/output/a.md\n+++ b/output/a.md\n@@ -1,3 +1,3 @@\n line 1\n-line 2\n+line two\n line 3\n' +
        '--- a/output/gone.md\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-bye\n' +
        '--- /dev/null\n+++ b/output/new.md\n@@ -0,0 +1,1 @@\n+hello\n',
    );
  });
});
