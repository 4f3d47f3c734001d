import { describe, expect, test } from 'vitest';
import {
  ADVERTISED_NAME_PATTERN,
  advertise,
  advertisedName,
  decodeAdvertised,
  registryNameOf,
} from '../../../../src/features/gateway/rules/names.js';

describe('advertised tool names', () => {
  test.each([
    ['workspace.read_file', 'workspace__read_file'],
    ['mcp.everything.test_simple_text', 'mcp__everything__test_simple_text'],
    ['echo', 'echo'],
    ['my-tool.v2', 'my-tool__v2'],
  ])('%s is advertised as %s and decodes back', (name, advertised) => {
    expect(advertisedName(name)).toBe(advertised);
    expect(registryNameOf(advertised)).toBe(name);
  });

  test.each(['a__b', 'a_.b', 'a._b', 'a..b', '.a', 'b_', `x.${'y'.repeat(70)}`])(
    '%s, which the plain form cannot carry, gets the stable hashed form',
    (name) => {
      const advertised = advertisedName(name);
      expect(advertised).toMatch(ADVERTISED_NAME_PATTERN);
      expect(advertised).toMatch(/___[0-9a-f]{12}$/);
      expect(advertisedName(name)).toBe(advertised);
      expect(registryNameOf(advertised)).toBeNull();
      expect(advertise([name, 'other.tool']).byAdvertised.get(advertised)).toBe(name);
    },
  );

  test('names that read alike in plain form never share an advertised name', () => {
    const names = ['a.b', 'a_b', 'a__b', 'a._b', 'a_.b', 'a-b', 'a.b.c', 'a.b_c', 'a_b.c'];
    const { byAdvertised, collisions } = advertise(names);
    expect(collisions).toEqual([]);
    expect(new Set(byAdvertised.values())).toEqual(new Set(names));
  });

  test('every advertised name matches ^[a-zA-Z0-9_-]{1,64}$ whatever the registry name', () => {
    for (const name of ['x', 'a.b.c.d.e', `${'n'.repeat(128)}`, '-.-', '_', 'A-Z.0-9_x']) {
      expect(advertisedName(name)).toMatch(ADVERTISED_NAME_PATTERN);
    }
  });

  test('two names whose advertised names collide are both left out', () => {
    // Stands for a hash collision: the same name twice is the only collision the hash lets us make.
    const { byAdvertised, collisions } = advertise(['dup.tool', 'dup.tool']);
    expect(byAdvertised.size).toBe(0);
    expect(collisions).toEqual(['dup.tool', 'dup.tool']);
  });

  test('a call by the registry name is accepted; a name it may not see is not', () => {
    const visible = advertise(['workspace.read_file']);
    const names = new Set(['workspace.read_file']);
    expect(decodeAdvertised('workspace__read_file', visible, names)).toBe('workspace.read_file');
    expect(decodeAdvertised('workspace.read_file', visible, names)).toBe('workspace.read_file');
    expect(decodeAdvertised('workspace.write_file', visible, names)).toBeNull();
  });
});
