import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/app/logger.js';
import { createServices } from '../../../src/app/services.js';
import { checkToolSchema } from '../../../src/core/json-schema.js';
import type { Database } from '../../../src/db/client.js';
import { workspaceTools } from '../../../src/features/workspace/index.js';

/** Building tools and services touches no storage (only running them does), so none is given. */
const noDatabase = { driver: 'pglite', db: {} } as unknown as Database;

const byName = Object.fromEntries(
  workspaceTools(createServices(noDatabase, createLogger('silent')).workspaces).map((tool) => [
    tool.spec.name,
    tool.spec,
  ]),
);

describe('workspace tool specs', () => {
  it('are the seven workspace tools, shipped as built-ins', () => {
    expect(Object.keys(byName)).toEqual([
      'workspace.list_files',
      'workspace.read_file',
      'workspace.write_file',
      'workspace.apply_patch',
      'workspace.create_checkpoint',
      'workspace.restore_checkpoint',
      'workspace.finish',
    ]);
    const shipped = createServices(noDatabase, createLogger('silent')).builtIns.definitions.map(
      (tool) => tool.spec.name,
    );
    for (const name of Object.keys(byName)) expect(shipped).toContain(name);
  });

  it('have input and output schemas that compile', () => {
    for (const spec of Object.values(byName)) {
      expect(checkToolSchema(spec.inputSchema, true), spec.name).toEqual({ ok: true });
      expect(checkToolSchema(spec.outputSchema, true), spec.name).toEqual({ ok: true });
      expect(spec.inputSchema.additionalProperties, spec.name).toBe(false);
    }
  });

  it('declare what they do to the workspace, and none reaches outside it', () => {
    const hints = Object.fromEntries(
      Object.values(byName).map((s) => [
        s.name,
        [
          s.annotations.readOnly,
          s.annotations.destructive,
          s.annotations.idempotent,
          s.annotations.openWorld,
        ],
      ]),
    );
    expect(hints).toEqual({
      'workspace.list_files': [true, false, true, false],
      'workspace.read_file': [true, false, true, false],
      'workspace.write_file': [false, false, false, false],
      'workspace.apply_patch': [false, false, false, false],
      'workspace.create_checkpoint': [false, false, false, false],
      'workspace.restore_checkpoint': [false, true, true, false],
      'workspace.finish': [false, false, true, false],
    });
  });

  it('need approval only to restore a checkpoint', () => {
    const gated = Object.values(byName).filter((s) => s.permission === 'APPROVAL_REQUIRED');
    expect(gated.map((s) => s.name)).toEqual(['workspace.restore_checkpoint']);
  });
});
