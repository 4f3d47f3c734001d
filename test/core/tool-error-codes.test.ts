import { describe, expect, test } from 'vitest';
import { builtInErrorCodes } from '../../src/core/tool-error-codes.js';
import { RecoverableToolError, SystemFailure } from '../../src/core/tool-errors.js';

describe('built-in error codes', () => {
  test('are lower_snake_case, each listed once', () => {
    for (const code of builtInErrorCodes) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
    expect(new Set(builtInErrorCodes).size).toBe(builtInErrorCodes.length);
  });

  test('name the error a tool throws', () => {
    expect(new RecoverableToolError('stale_write', 'Read it again.').code).toBe('stale_write');
    expect(new SystemFailure('path_escape', 'Outside the workspace.').code).toBe('path_escape');
  });

  test("let a tool from outside the server's families name its own code", () => {
    expect(new RecoverableToolError({ own: 'no_hits' }, 'Nothing matched.').code).toBe('no_hits');
  });
});
