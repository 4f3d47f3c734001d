import { describe, expect, test } from 'vitest';
import { providerCallKeys } from '../../src/model/provider-call-keys.js';

describe('providerCallKeys', () => {
  test('ids new to the run are kept as they are', () => {
    expect(providerCallKeys(['call_a', 'call_b'], new Set(['call_z']), 3)).toEqual(['call_a', 'call_b']);
  });

  test('an id an earlier turn used gets the turn index', () => {
    expect(providerCallKeys(['call_0', 'call_1'], new Set(['call_0']), 2)).toEqual(['call_0#t2', 'call_1']);
  });

  test('an id repeated within the turn is numbered after its first use', () => {
    expect(providerCallKeys(['call_0', 'call_0', 'call_0'], new Set(), 1)).toEqual([
      'call_0',
      'call_0#t1',
      'call_0#t1.2',
    ]);
  });

  test('a suffixed key that is itself taken is skipped', () => {
    expect(providerCallKeys(['call_0'], new Set(['call_0', 'call_0#t4']), 4)).toEqual(['call_0#t4.2']);
  });

  test('an empty id always gets the turn index, numbered like any repeat', () => {
    expect(providerCallKeys(['', ''], new Set(), 2)).toEqual(['#t2', '#t2.2']);
  });
});
