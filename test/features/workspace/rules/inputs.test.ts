import { describe, expect, test } from 'vitest';
import { checkInputPath } from '../../../../src/features/workspace/rules/inputs.js';
import { DEFAULT_ROOTS } from '../../../../src/features/workspace/rules/roots.js';

describe('checkInputPath', () => {
  test.for([
    ['inputs/brief.md', { ok: true, path: 'inputs/brief.md' }],
    ['inputs//chat/./log.txt', { ok: true, path: 'inputs/chat/log.txt' }],
    [
      'output/a.md',
      {
        ok: false,
        reason: 'not_an_input',
        message: '"output/a.md" is not inside a read-only root (inputs/)',
      },
    ],
    [
      'inputs',
      { ok: false, reason: 'not_an_input', message: '"inputs" is not inside a read-only root (inputs/)' },
    ],
    ['inputs/../output/a.md', { ok: false, reason: 'not_an_input' }],
    ['../inputs/a.md', { ok: false, reason: 'path_traversal' }],
  ] as const)('%s', ([path, expected]) => {
    expect(checkInputPath(path, DEFAULT_ROOTS)).toMatchObject(expected);
  });

  test('a workspace without a read-only root takes no inputs', () => {
    expect(checkInputPath('inputs/a.md', [{ path: 'output', writable: true }])).toEqual({
      ok: false,
      reason: 'not_an_input',
      message: '"inputs/a.md": this workspace has no read-only root to put inputs in',
    });
  });
});
