import { describe, expect, test } from 'vitest';
import {
  filtersFromSearch,
  filtersToSearch,
  NO_FILTERS,
  toServerFilter,
} from '../../console/src/logic/filters.js';

describe('queue filters', () => {
  test('no filter sends no argument', () => {
    expect(toServerFilter(NO_FILTERS)).toBeNull();
  });

  test('each input maps to its field of ApprovalQueueFilter, trimmed', () => {
    expect(toServerFilter({ user: ' alice ', run: 'r1', tool: 'workspace.*', source: 'MCP' })).toEqual({
      userId: 'alice',
      runId: 'r1',
      toolPattern: 'workspace.*',
      source: 'MCP',
    });
  });

  test('blank inputs are left out', () => {
    expect(toServerFilter({ ...NO_FILTERS, user: '   ', tool: 'fs.read' })).toEqual({
      toolPattern: 'fs.read',
    });
  });

  test('filters survive the URL', () => {
    const filters = { user: 'alice', run: '', tool: 'workspace.*', source: 'EXTENSION' as const };
    expect(filtersFromSearch(filtersToSearch(filters))).toEqual(filters);
  });

  test('no filters make no query', () => {
    expect(filtersToSearch(NO_FILTERS)).toBe('');
  });

  test('an unknown source in the URL is ignored', () => {
    expect(filtersFromSearch('?source=NOPE&user=bob')).toEqual({ ...NO_FILTERS, user: 'bob' });
  });
});
