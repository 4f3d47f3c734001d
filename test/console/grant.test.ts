import { describe, expect, test } from 'vitest';
import {
  describeCondition,
  folderGlob,
  suggestConditions,
  toConditionInputs,
} from '../../console/src/logic/grant.js';

describe('suggestConditions (a grant narrowed to the call’s folder)', () => {
  test('a path argument suggests its folder as a path glob', () => {
    expect(suggestConditions({ path: 'output/drafts/a.md', content: 'x' })).toEqual([
      { pointer: '/path', operator: 'glob', value: 'output/drafts/**', path: true },
    ]);
  });

  test('other path-like names count too; the first present wins', () => {
    expect(suggestConditions({ file: 'notes/x.txt' })).toEqual([
      { pointer: '/file', operator: 'glob', value: 'notes/**', path: true },
    ]);
  });

  test('arguments without a path suggest nothing', () => {
    expect(suggestConditions({ text: 'hello' })).toEqual([]);
    expect(suggestConditions({ path: 3 })).toEqual([]);
    expect(suggestConditions(null)).toEqual([]);
  });

  test.each([
    ['output/drafts/a.md', 'output/drafts/**'],
    ['./output/a.md', 'output/**'],
    ['output/drafts/', 'output/**'],
    ['top.md', 'top.md'],
  ])('folderGlob(%s) is %s', (path, glob) => {
    expect(folderGlob(path)).toBe(glob);
  });
});

describe('toConditionInputs', () => {
  test('each draft becomes one PolicyConditionInput with its operator as the key', () => {
    expect(
      toConditionInputs([
        { pointer: '/path', operator: 'glob', value: 'output/**', path: true },
        { pointer: ' /mode ', operator: 'prefix', value: 'app', path: false },
      ]),
    ).toEqual({
      ok: true,
      conditions: [
        { pointer: '/path', path: true, glob: 'output/**' },
        { pointer: '/mode', prefix: 'app' },
      ],
    });
  });

  test('equals takes JSON when it parses and the text otherwise', () => {
    const drafts = ['3', 'true', '"x"', 'plain'].map((value) => ({
      pointer: '/v',
      operator: 'equals' as const,
      value,
      path: false,
    }));
    const result = toConditionInputs(drafts);
    expect(result.ok && result.conditions.map((c) => c.equals)).toEqual([3, true, 'x', 'plain']);
  });

  test('a pointer without a leading / or an empty value is refused, naming the condition', () => {
    expect(toConditionInputs([{ pointer: 'path', operator: 'glob', value: 'a', path: false }])).toEqual({
      ok: false,
      error: 'condition 1: the pointer starts with / (e.g. /path)',
    });
    expect(
      toConditionInputs([
        { pointer: '/a', operator: 'glob', value: 'a', path: false },
        { pointer: '/b', operator: 'glob', value: ' ', path: false },
      ]),
    ).toEqual({ ok: false, error: 'condition 2: a value is needed' });
  });
});

test('describeCondition reads a grant’s condition back', () => {
  expect(describeCondition({ pointer: '/path', operator: 'glob', value: 'output/**', path: true })).toBe(
    '/path glob output/** (path)',
  );
  expect(describeCondition({ pointer: '/n', operator: 'in', value: [1, 2], path: false })).toBe(
    '/n in [1,2]',
  );
});
