import { describe, expect, test } from 'vitest';
import { approvalQueueFilterSchema, matchesQueueFilter } from '../../../src/calls/rules/queue-filter.js';

const RUN = '00000000-0000-4000-8000-000000000001';
const OTHER_RUN = '00000000-0000-4000-8000-000000000002';
const call = { runId: RUN, name: 'workspace.write_file', tool: { source: 'BUILT_IN' } };

describe('matchesQueueFilter', () => {
  test.each([
    ['no filter', null, 'alice', true],
    ['an empty filter', {}, 'alice', true],
    ['its run', { runId: RUN }, 'alice', true],
    ['another run', { runId: OTHER_RUN }, 'alice', false],
    ['its user', { userId: 'alice' }, 'alice', true],
    ['another user', { userId: 'bob' }, 'alice', false],
    ['a user when the run has none', { userId: 'alice' }, null, false],
    ['its exact tool name', { toolPattern: 'workspace.write_file' }, 'alice', true],
    ['a glob over the dot', { toolPattern: 'workspace.*' }, 'alice', true],
    ['a glob with ?', { toolPattern: 'workspace.write_fil?' }, 'alice', true],
    ['another tool', { toolPattern: 'chat.*' }, 'alice', false],
    ['a prefix without a glob', { toolPattern: 'workspace' }, 'alice', false],
    ['its source', { source: 'BUILT_IN' }, 'alice', true],
    ['another source', { source: 'MCP' }, 'alice', false],
    [
      'every field at once',
      { runId: RUN, userId: 'alice', toolPattern: 'workspace.*', source: 'BUILT_IN' },
      'alice',
      true,
    ],
    [
      'every field but one',
      { runId: RUN, userId: 'alice', toolPattern: 'workspace.*', source: 'MCP' },
      'alice',
      false,
    ],
  ] as const)('%s: %s', (_name, filter, user, expected) => {
    expect(matchesQueueFilter(filter, call, user)).toBe(expected);
  });

  test('a call whose tool is gone matches no source', () => {
    expect(matchesQueueFilter({ source: 'BUILT_IN' }, { ...call, tool: null }, 'alice')).toBe(false);
  });
});

describe('approvalQueueFilterSchema', () => {
  test.each([
    [{ runId: 'run-1' }, 'runId'],
    [{ userId: 'team-*' }, 'userId'],
    [{ userId: '' }, 'userId'],
    [{ toolPattern: 'workspace/*' }, 'toolPattern'],
    [{ toolPattern: 'x'.repeat(257) }, 'toolPattern'],
    [{ source: 'PLUGIN' }, 'source'],
    [{ status: 'DENIED' }, ''],
  ])('refuses %j at %s', (raw, path) => {
    const parsed = approvalQueueFilterSchema.safeParse(raw);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((i) => i.path.join('.'))).toEqual([path]);
  });
});
