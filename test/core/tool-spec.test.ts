import { describe, expect, it } from 'vitest';
import { normalizeAnnotations } from '../../src/core/tool-spec.js';

describe('normalizeAnnotations', () => {
  it('uses the MCP defaults for unset hints', () => {
    expect(normalizeAnnotations(undefined)).toEqual({
      readOnly: false,
      destructive: true,
      idempotent: false,
      openWorld: true,
      cost: null,
    });
  });

  it('treats a read-only tool as not destructive', () => {
    expect(normalizeAnnotations({ readOnly: true, destructive: true }).destructive).toBe(false);
  });
});
