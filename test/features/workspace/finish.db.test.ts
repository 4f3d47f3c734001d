import { describe, expect } from 'vitest';
import { DEFAULT_WORKSPACE_CONFIG } from '../../../src/features/workspace/rules/config.js';
import { sha256Hex } from '../../../src/features/workspace/rules/content.js';
import { workspaceTest as test } from '../../support/fixtures.js';
import { eventTypes } from '../../support/lifecycle.js';
import { call, output, servicesWith, WORKSPACE, workspaceRun, writeFile } from '../../support/workspace.js';

describe('workspace.finish validates the manifest', () => {
  test('with nothing in output/ it is a recoverable error naming what is missing, and the run goes on', async ({
    services,
    run,
  }) => {
    await writeFile(services, run.id, 'scratch/notes.md', 'thinking');
    const refused = await call(services, run.id, 'finish', { summary: 'done' });
    expect(refused.status).toBe('FAILED');
    expect(refused.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'manifest_incomplete',
      message:
        'The work is not finished: output/ holds no file. Write the missing artifacts, then call workspace.finish again.',
    });
    expect(refused.result!.structured).toEqual({ missing: [{ requirement: 'output/', problem: 'missing' }] });
    expect((await services.runs.get(run.id))!.status).toBe('RUNNING');
    expect((await services.workspaces.store.checkpoints(WORKSPACE)).map((c) => c.reason)).toEqual(['write']);
  });

  test('declared artifacts must exist and be non-empty', async ({ services, run }) => {
    await writeFile(services, run.id, 'output/report.md', 'the report');
    await writeFile(services, run.id, 'output/appendix.md', '');
    const refused = await call(services, run.id, 'finish', {
      artifacts: ['output/report.md', 'output/appendix.md', 'output/figures.md', 'summaries/'],
    });
    expect(refused.error).toEqual({
      kind: 'RECOVERABLE',
      code: 'manifest_incomplete',
      message:
        'The work is not finished: output/appendix.md is empty; output/figures.md does not exist; summaries/ holds no file. Write the missing artifacts, then call workspace.finish again.',
    });
  });

  test('a complete manifest completes the run with a final checkpoint, journaled in order', async ({
    services,
    run,
  }) => {
    await writeFile(services, run.id, 'output/report.md', 'the report');
    await writeFile(services, run.id, 'output/empty.md', '');
    await writeFile(services, run.id, 'scratch/notes.md', 'n');
    const done = await call(services, run.id, 'finish', {
      summary: 'Wrote the report.',
      artifacts: ['output/report.md'],
    });
    expect(done.status).toBe('COMPLETED');
    expect(output(done)).toEqual({
      completed: true,
      summary: 'Wrote the report.',
      artifacts: [{ path: 'output/report.md', size: 10, sha256: sha256Hex(Buffer.from('the report')) }],
      checkpoint: { id: expect.any(String), number: 4 },
    });
    expect((await services.runs.get(run.id))!.status).toBe('COMPLETED');
    expect((await eventTypes(services, { runId: run.id })).slice(-5)).toEqual([
      'tool_call_requested',
      'tool_call_started',
      'checkpoint_created',
      'tool_call_completed',
      'run_completed',
    ]);
    const last = await services.workspaces.store.checkpoint(WORKSPACE, '4');
    expect(last).toMatchObject({ reason: 'finish', label: 'finish', fileCount: 3 });
  });

  test("a profile's own required artifacts replace the default", async ({ testDb }) => {
    const services = await servicesWith(testDb, {
      ...DEFAULT_WORKSPACE_CONFIG,
      profiles: { editor: { requiredArtifacts: ['output/chapter.md', 'summaries/'] } },
    });
    try {
      const run = await workspaceRun(services, { profileId: 'editor' });
      await writeFile(services, run.id, 'output/chapter.md', 'Chapter one.');
      const refused = await call(services, run.id, 'finish');
      expect(refused.error).toMatchObject({ code: 'manifest_incomplete' });
      expect(refused.result!.structured).toEqual({
        missing: [{ requirement: 'summaries/', problem: 'missing' }],
      });
      await writeFile(services, run.id, 'summaries/chapter.md', 'A summary.');
      const done = await call(services, run.id, 'finish');
      expect(output(done).artifacts.map((a: { path: string }) => a.path)).toEqual([
        'output/chapter.md',
        'summaries/chapter.md',
      ]);
    } finally {
      await services.stop();
    }
  });
});
